import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createVerifier, EntitlementTokenRefused, verify, type RefusalReason } from '../src/index.js';
import {
  claimsAt,
  ISSUER,
  newKey,
  RESOURCE,
  signRevocations,
  signToken,
  startKeyServer,
  testClock,
  type KeyServer,
  type TestKey,
} from './support.js';

const b64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

/** The reason a verification was refused with (fails the test when it was accepted). */
async function refusalOf(verification: Promise<unknown>): Promise<RefusalReason> {
  try {
    await verification;
  } catch (error) {
    if (error instanceof EntitlementTokenRefused) return error.reason;
    throw error;
  }
  throw new Error('the token was accepted');
}

describe('verify', () => {
  let server: KeyServer;
  let current: TestKey;

  beforeAll(async () => {
    server = await startKeyServer();
    current = await newKey('key-1');
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.keys = [current.publicJwk];
    server.maxAgeSeconds = 60;
    server.down = false;
    server.revocationList = null;
  });

  const verifierAt = (clock = testClock(), extra: { issuer?: string; revocations?: boolean } = {}) =>
    createVerifier({
      resource: RESOURCE,
      jwksUrl: server.jwksUrl,
      issuer: extra.issuer ?? ISSUER,
      ...(extra.revocations ? { revocationsUrl: server.revocationsUrl } : {}),
      now: clock.now,
    });

  it('accepts a valid token and answers its claims', async () => {
    const clock = testClock();
    const token = await signToken(current, claimsAt(clock.seconds()));
    expect(await verifierAt(clock).verify(token)).toEqual(claimsAt(clock.seconds()));
  });

  it('fetches the key set once and keeps it for the max-age it was served with', async () => {
    const clock = testClock();
    const verifier = verifierAt(clock);
    const token = await signToken(current, claimsAt(clock.seconds()));
    const before = server.jwksFetches;
    for (let i = 0; i < 20; i++) await verifier.verify(token);
    expect(server.jwksFetches - before).toBe(1);
    clock.advance(61_000);
    await verifier.verify(await signToken(current, claimsAt(clock.seconds())));
    expect(server.jwksFetches - before).toBe(2);
  });

  describe('refuses', () => {
    it('a payload changed after signing', async () => {
      const clock = testClock();
      const [header, , signature] = (await signToken(current, claimsAt(clock.seconds()))).split('.');
      const forged = b64url(JSON.stringify(claimsAt(clock.seconds(), { plans: [{ id: 9, slug: 'everything', pricing_id: 1 }] })));
      expect(await refusalOf(verifierAt(clock).verify(`${header}.${forged}.${signature}`))).toBe('bad_signature');
    });

    it('a signature changed', async () => {
      const clock = testClock();
      const [header, payload, signature] = (await signToken(current, claimsAt(clock.seconds()))).split('.');
      const bytes = Buffer.from(signature!, 'base64url');
      bytes[0] = bytes[0]! ^ 0xff;
      expect(await refusalOf(verifierAt(clock).verify(`${header}.${payload}.${b64url(bytes)}`))).toBe('bad_signature');
    });

    it('an unsigned token (alg none)', async () => {
      const clock = testClock();
      const header = b64url(JSON.stringify({ alg: 'none', typ: 'masthead-entitlement+jwt', kid: current.kid }));
      const token = `${header}.${b64url(JSON.stringify(claimsAt(clock.seconds())))}.`;
      expect(await refusalOf(verifierAt(clock).verify(token))).toBe('algorithm_not_allowed');
    });

    it('an HS256 token whose secret is the published public key (algorithm confusion)', async () => {
      const clock = testClock();
      const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'masthead-entitlement+jwt', kid: current.kid }));
      const payload = b64url(JSON.stringify(claimsAt(clock.seconds())));
      for (const secret of [JSON.stringify(current.publicJwk), Buffer.from(current.publicJwk.x!, 'base64url')]) {
        const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
        expect(await refusalOf(verifierAt(clock).verify(`${header}.${payload}.${signature}`))).toBe('algorithm_not_allowed');
      }
    });

    it('a token signed by a key the set does not publish (unknown kid), after one more look at the set', async () => {
      const clock = testClock();
      const verifier = verifierAt(clock);
      await verifier.verify(await signToken(current, claimsAt(clock.seconds())));
      const stranger = await newKey('key-unknown');
      clock.advance(31_000);
      const before = server.jwksFetches;
      expect(await refusalOf(verifier.verify(await signToken(stranger, claimsAt(clock.seconds()))))).toBe('unknown_key');
      expect(server.jwksFetches - before).toBe(1);
      // A flood of made-up kids costs no more fetches within the cooldown.
      for (let i = 0; i < 5; i++) await refusalOf(verifier.verify(await signToken(stranger, claimsAt(clock.seconds()))));
      expect(server.jwksFetches - before).toBe(1);
    });

    it('a key of the set used under another kid: the kid names the key, not the signer', async () => {
      const clock = testClock();
      const other = await newKey('key-2');
      server.keys = [current.publicJwk, other.publicJwk];
      const token = await signToken({ ...other, kid: current.kid }, claimsAt(clock.seconds()));
      expect(await refusalOf(verifierAt(clock).verify(token))).toBe('bad_signature');
    });

    it('a token of resource A presented for resource B', async () => {
      const clock = testClock();
      const token = await signToken(current, claimsAt(clock.seconds(), { aud: 'another-resource' }));
      expect(await refusalOf(verifierAt(clock).verify(token))).toBe('wrong_resource');
    });

    it('a token of another issuer when an issuer is expected', async () => {
      const clock = testClock();
      const token = await signToken(current, claimsAt(clock.seconds(), { iss: 'someone-else' }));
      expect(await refusalOf(verifierAt(clock).verify(token))).toBe('wrong_issuer');
    });

    it('an expired token, beyond the clock tolerance', async () => {
      const clock = testClock();
      const token = await signToken(current, claimsAt(clock.seconds() - 1000, { exp: clock.seconds() - 6 }));
      expect(await refusalOf(verifierAt(clock).verify(token))).toBe('expired');
    });

    it('a token not yet valid, beyond the clock tolerance', async () => {
      const clock = testClock();
      const later = clock.seconds() + 60;
      const token = await signToken(current, claimsAt(later));
      expect(await refusalOf(verifierAt(clock).verify(token))).toBe('not_yet_valid');
    });

    it('another kind of JWT signed with the same keys (a revocation list)', async () => {
      const clock = testClock();
      const list = await signRevocations(current, claimsAt(clock.seconds()));
      expect(await refusalOf(verifierAt(clock).verify(list))).toBe('wrong_type');
    });

    it('a token without the entitlement claims', async () => {
      const clock = testClock();
      const claims = claimsAt(clock.seconds());
      delete claims['plans'];
      expect(await refusalOf(verifierAt(clock).verify(await signToken(current, claims)))).toBe('malformed');
    });

    it('text that is no token', async () => {
      for (const text of ['', 'not-a-token', 'a.b.c', 'x'.repeat(9000)])
        expect(await refusalOf(verifierAt().verify(text))).toBe('malformed');
    });
  });

  describe('key rotation', () => {
    it('accepts a token of a key rotated in since the set was fetched, at once', async () => {
      const clock = testClock();
      const verifier = verifierAt(clock);
      await verifier.verify(await signToken(current, claimsAt(clock.seconds())));
      const next = await newKey('key-next');
      server.keys = [current.publicJwk, next.publicJwk];
      // Past the cooldown since the last fetch: the unknown kid makes it look again.
      clock.advance(31_000);
      expect((await verifier.verify(await signToken(next, claimsAt(clock.seconds())))).sub).toBe('42');
    });

    it('refuses a key retired after rotation once its kept set has aged, even for a token not yet expired', async () => {
      const clock = testClock();
      const verifier = verifierAt(clock);
      const retired = current;
      const longLived = await signToken(retired, claimsAt(clock.seconds(), { exp: clock.seconds() + 3600 }));
      await verifier.verify(longLived);
      const next = await newKey('key-after');
      server.keys = [next.publicJwk];
      clock.advance(server.maxAgeSeconds * 1000 + 1);
      expect(await refusalOf(verifier.verify(longLived))).toBe('unknown_key');
      expect((await verifier.verify(await signToken(next, claimsAt(clock.seconds())))).sid).toBe('7');
    });
  });

  describe('outages', () => {
    it('keeps verifying with a set past its age while the key set cannot be fetched', async () => {
      const clock = testClock();
      const verifier = verifierAt(clock);
      await verifier.verify(await signToken(current, claimsAt(clock.seconds())));
      server.down = true;
      clock.advance(10 * 60_000);
      expect((await verifier.verify(await signToken(current, claimsAt(clock.seconds())))).aud).toBe(RESOURCE);
    });

    it('answers unavailable, not a refusal of the token, when no key set was ever had', async () => {
      server.down = true;
      const clock = testClock();
      expect(await refusalOf(verifierAt(clock).verify(await signToken(current, claimsAt(clock.seconds()))))).toBe('unavailable');
    });
  });

  describe('the revocation list', () => {
    const listAt = (clock: ReturnType<typeof testClock>, sessions: Record<string, number>, members: Record<string, number> = {}) =>
      signRevocations(current, { iss: ISSUER, aud: RESOURCE, iat: clock.seconds(), exp: clock.seconds() + 60, sessions, members });

    it('refuses a token of a listed session or member issued at or before its stamp; later ones pass', async () => {
      const clock = testClock();
      const issued = clock.seconds();
      const bySession = await signToken(current, claimsAt(issued));
      const byMember = await signToken(current, claimsAt(issued, { sid: '8' }));
      clock.advance(2000);
      server.revocationList = await listAt(clock, { '7': issued }, { '42': issued });
      const verifier = verifierAt(clock, { revocations: true });
      expect(await refusalOf(verifier.verify(bySession))).toBe('revoked');
      expect(await refusalOf(verifier.verify(byMember))).toBe('revoked');
      expect(server.lastResource).toBe(RESOURCE);
      const fresh = await signToken(current, claimsAt(clock.seconds()));
      expect((await verifier.verify(fresh)).sid).toBe('7');
    });

    it('refuses a list for another resource or of another type, and then answers unavailable', async () => {
      const clock = testClock();
      server.revocationList = await signRevocations(current, {
        iss: ISSUER,
        aud: 'elsewhere',
        iat: clock.seconds(),
        exp: clock.seconds() + 60,
        sessions: {},
        members: {},
      });
      const token = await signToken(current, claimsAt(clock.seconds()));
      expect(await refusalOf(verifierAt(clock, { revocations: true }).verify(token))).toBe('unavailable');
      server.revocationList = await signToken(current, {
        iss: ISSUER,
        aud: RESOURCE,
        iat: clock.seconds(),
        exp: clock.seconds() + 60,
        sessions: {},
        members: {},
      });
      expect(await refusalOf(verifierAt(clock, { revocations: true }).verify(token))).toBe('unavailable');
    });

    it('keeps the last list until its exp when a renewal fails, then answers unavailable', async () => {
      const clock = testClock();
      server.revocationList = await listAt(clock, {});
      const verifier = verifierAt(clock, { revocations: true });
      await verifier.verify(await signToken(current, claimsAt(clock.seconds())));
      server.revocationList = null;
      clock.advance(40_000);
      await verifier.verify(await signToken(current, claimsAt(clock.seconds())));
      clock.advance(25_000);
      expect(await refusalOf(verifier.verify(await signToken(current, claimsAt(clock.seconds()))))).toBe('unavailable');
    });
  });

  it('verify() keeps one key set per URL and resource across calls', async () => {
    const token = await signToken(current, claimsAt(Math.floor(Date.now() / 1000)));
    const before = server.jwksFetches;
    for (let i = 0; i < 5; i++) await verify(token, { resource: RESOURCE, jwksUrl: server.jwksUrl });
    expect(server.jwksFetches - before).toBe(1);
  });
});
