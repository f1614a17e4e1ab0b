import { randomBytes } from 'node:crypto';
import { ENTITLEMENT_TOKEN_TYPE } from '@masthead/entitlements';
import { createLogger } from '@masthead/core/logging';
import { connectMongo } from '@masthead/core/mongo';
import { parseKeyRing, type KeyRing } from '@masthead/core/secrets';
import { importJWK, jwtVerify, type JWK } from 'jose';
import type { Connection } from 'mongoose';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { entitlementTiming } from '../src/entitlements/entitlements.config.js';
import { SigningKeyRepository } from '../src/entitlements/signing-key.repository.js';
import { SigningKeys } from '../src/entitlements/signing-keys.js';

const ringOf = (...ids: string[]): KeyRing => parseKeyRing(ids.map((id) => `${id}:${KEYS[id]}`).join(','));
const KEYS: Record<string, string> = Object.fromEntries(['a', 'b', 'c'].map((id) => [id, randomBytes(32).toString('base64')]));
/** A one-minute token lifetime: a key-set age of 10 s, a rotation lead of 90 s, retirement 70 s after the switch. */
const TIMING = entitlementTiming(60);

/**
 * The signing keys over the run's FerretDB (docs/adr/0247): one first key for racing replicas,
 * the rotation's schedule on a clock the test moves, sealing bound to the key, a rotated ring.
 */
describe('signing keys', () => {
  const logger = createLogger({ name: 'signing-keys-test', level: 'silent' });
  const databases: Connection[] = [];
  let now = Date.parse('2030-01-01T00:00:00.000Z');
  // The schedule is read from this clock alone; each test moves it forward only.
  const clock = () => now;

  afterAll(async () => {
    for (const db of databases) {
      await db.dropDatabase();
      await db.close();
    }
  });

  async function store() {
    const db = await connectMongo({ url: inject('mongoUrl'), dbName: `signing_keys_${Date.now()}_${databases.length}` });
    databases.push(db);
    const repository = new SigningKeyRepository(db);
    await repository.ready();
    return { db, repository };
  }
  const replica = (repository: SigningKeyRepository, ring: KeyRing | null = ringOf('a')) =>
    new SigningKeys({ repository, ring, timing: TIMING, logger, clock });
  const kidsOf = (jwks: string) => (JSON.parse(jwks) as { keys: JWK[] }).keys.map((key) => key.kid);

  /** Verifies a token the replica signs now against the set it publishes, as an edge would. */
  async function verifiesAgainstPublished(keys: SigningKeys): Promise<string> {
    const token = keys.signer()!.sign(ENTITLEMENT_TOKEN_TYPE, { sub: '1' });
    const { keys: published } = JSON.parse(keys.publishedJwks()) as { keys: JWK[] };
    const { protectedHeader } = await jwtVerify(
      token,
      async (header) =>
        importJWK(
          published.find((key) => key.kid === header.kid)!,
          'EdDSA',
        ),
      { algorithms: ['EdDSA'] },
    );
    expect(protectedHeader.typ).toBe(ENTITLEMENT_TOKEN_TYPE);
    return protectedHeader.kid!;
  }

  it('stores one first key for replicas starting together; it signs at once and is published', async () => {
    const { repository } = await store();
    const [a, b] = [replica(repository), replica(repository)];
    await Promise.all([a.start(), b.start()]);
    await b.views();
    expect(await repository.list()).toHaveLength(1);
    expect(a.signer()?.kid).toBeDefined();
    expect(b.signer()?.kid).toBe(a.signer()?.kid);
    expect(await verifiesAgainstPublished(a)).toBe(a.signer()!.kid);
    a.stop();
    b.stop();
  });

  it('rotates on schedule: published at once, signing a lead later, the old key retired after its last token', async () => {
    const { repository } = await store();
    const [a, b] = [replica(repository), replica(repository)];
    await a.start();
    await b.start();
    const first = a.signer()!.kid;
    const rotatedAt = now;
    const [, second] = await a.rotate();
    expect(second).toMatchObject({ state: 'pending', signsFrom: new Date(rotatedAt + TIMING.rotationLeadMs) });
    expect(kidsOf(a.publishedJwks())).toEqual([first, second!.kid]);

    now = rotatedAt + TIMING.rotationLeadMs - 1;
    await b.views(); // the other replica's periodic reload
    expect([a.signer()?.kid, b.signer()?.kid]).toEqual([first, first]);
    now = rotatedAt + TIMING.rotationLeadMs;
    // Both switch at the same moment, told nothing but the stored times.
    expect([a.signer()?.kid, b.signer()?.kid]).toEqual([second!.kid, second!.kid]);
    expect(await verifiesAgainstPublished(b)).toBe(second!.kid);
    const retiresAt = rotatedAt + TIMING.rotationLeadMs + TIMING.retireAfterMs;
    expect((await a.views()).map((key) => [key.state, key.retiresAt?.getTime() ?? null])).toEqual([
      ['retiring', retiresAt],
      ['signing', null],
    ]);
    now = retiresAt - 1;
    expect(kidsOf(a.publishedJwks())).toEqual([first, second!.kid]);
    now = retiresAt;
    expect(kidsOf(a.publishedJwks())).toEqual([second!.kid]);
    expect((await a.views()).map((key) => key.state)).toEqual(['retired', 'signing']);
    a.stop();
    b.stop();
  });

  it('claims each generation once: of racing stores of the next key, one is kept and the rest answer false', async () => {
    const { repository } = await store();
    const keys = replica(repository);
    await keys.start();
    const [first] = await repository.list();
    const racing = await Promise.all(
      [1, 2, 3].map((n) =>
        repository.insert({ ...first!, _id: `racer-${n}`, generation: 2, created_at: new Date(now), signs_from: new Date(now) }),
      ),
    );
    expect(racing.filter(Boolean)).toHaveLength(1);
    expect((await repository.list()).map((key) => key.generation)).toEqual([1, 2]);
    keys.stop();
  });

  it('keeps the private key sealed and bound to its kid: a sealed value moved to another key does not open', async () => {
    const { db, repository } = await store();
    const keys = replica(repository);
    await keys.start();
    await keys.rotate();
    const [one, two] = await repository.list();
    expect(JSON.stringify([one, two])).not.toMatch(/PRIVATE KEY/);
    expect(one!.private_key.key_id).toBe('a');
    // The second key's sealed value put on the first: it no longer opens for it.
    await db.collection('signing_keys').updateOne({ _id: one!._id as never }, { $set: { private_key: two!.private_key } });
    const after = replica(repository);
    await after.start();
    expect(after.signer()).toBeUndefined();
    expect(kidsOf(after.publishedJwks())).toEqual([one!._id, two!._id]);
    keys.stop();
    after.stop();
  });

  it('re-seals with the current key of a rotated ring at start; a ring without the key signs nothing but still publishes', async () => {
    const { repository } = await store();
    const old = replica(repository, ringOf('a'));
    await old.start();
    const kid = old.signer()!.kid;
    const rotated = replica(repository, ringOf('b', 'a'));
    await rotated.start();
    expect((await repository.list()).map((key) => key.private_key.key_id)).toEqual(['b']);
    const renewed = replica(repository, ringOf('b'));
    await renewed.start();
    expect(renewed.signer()?.kid).toBe(kid);
    const stranger = replica(repository, ringOf('c'));
    await stranger.start();
    expect(stranger.signer()).toBeUndefined();
    expect(kidsOf(stranger.publishedJwks())).toEqual([kid]);
    for (const keys of [old, rotated, renewed, stranger]) keys.stop();
  });

  it('without a ring (production without IDENTITY_SECRETS_KEYS) stores no key and publishes an empty set', async () => {
    const { repository } = await store();
    const keys = replica(repository, null);
    await keys.start();
    expect(keys.signer()).toBeUndefined();
    expect(keys.publishedJwks()).toBe('{"keys":[]}');
    expect(await keys.rotate()).toEqual([]);
    expect(await repository.list()).toEqual([]);
    keys.stop();
  });
});
