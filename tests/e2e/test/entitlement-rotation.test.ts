import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createVerifier } from '@masthead/entitlements';
import { createMember, createTenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { eventually, useStack } from './support.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

interface KeyRow {
  kid: string;
  alg: string;
  state: string;
  created_at: string;
  signs_from: string;
  retires_at: string | null;
}

/** The `kid` a compact JWS names in its header. */
const kidOf = (token: string): string => (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string }).kid;

/**
 * Signing-key rotation through the admin CLI (docs/adr/0247), on a token lifetime of 6 seconds so
 * that the whole schedule runs in seconds: the key set's age is a sixth of it (1 s), a new key
 * signs 6 + 3 × 1 s after it is published, and the old one leaves the set 6 + 1 s after that.
 */
describe('signing-key rotation', { timeout: 60_000 }, () => {
  const s = useStack({ env: { ENTITLEMENT_TOKEN_TTL_SECONDS: '6' } });
  const cli = async (...args: string[]) =>
    JSON.parse(
      (await run(process.execPath, ['tools/admin/dist/cli.js', ...args], { cwd: repoRoot, env: { ...process.env, ...s.stack.env } }))
        .stdout,
    ) as KeyRow[];
  const jwks = async () => {
    const response = await fetch(`${s.stack.gatewayUrl}/.well-known/jwks.json`);
    expect(response.headers.get('cache-control')).toBe('public, max-age=1');
    return ((await response.json()) as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid);
  };

  it('publishes the new key at once, signs with it a lead later, and retires the old one after its last token', async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const session = await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: member });
    const headers = { resource: tenant.publicKey, token: session.body['token'] as string };
    const fresh = async () => (await s.api('/user/entitlement-token', { method: 'POST', headers })).body['entitlement_token'] as string;
    const before = session.body['entitlement_token'] as string;
    const [first] = await cli('list-signing-keys');
    expect(first).toMatchObject({ kid: kidOf(before), alg: 'EdDSA', state: 'signing', retires_at: null });
    expect(await jwks()).toEqual([first!.kid]);

    const rotatedAt = Date.now();
    const rotated = await cli('rotate-signing-key');
    const second = rotated[1]!;
    expect(rotated).toEqual([
      expect.objectContaining({ kid: first!.kid, state: 'signing', retires_at: expect.any(String) }),
      expect.objectContaining({ state: 'pending', retires_at: null }),
    ]);
    expect(JSON.stringify(rotated)).not.toMatch(/PRIVATE|"d"/);
    const signsFrom = Date.parse(second.signs_from);
    expect(signsFrom - rotatedAt).toBeGreaterThanOrEqual(9_000 - 1_000);
    expect(Date.parse(rotated[0]!.retires_at!)).toBe(signsFrom + 7_000);

    // Published before it signs: within one key-set age every copy holds it.
    await eventually(async () => ((await jwks()).length === 2 ? true : undefined), 3_000);
    expect(await jwks()).toEqual([first!.kid, second.kid]);
    expect(kidOf(await fresh())).toBe(first!.kid);

    const verifier = createVerifier({ resource: tenant.publicKey, jwksUrl: `${s.stack.gatewayUrl}/.well-known/jwks.json` });
    const signedByNew = await eventually(async () => {
      const token = await fresh();
      return kidOf(token) === second.kid ? token : undefined;
    }, 15_000);
    expect(Date.now()).toBeGreaterThanOrEqual(signsFrom - 1_000);
    expect((await verifier.verify(signedByNew)).sub).toBe(String(member.id));

    await eventually(async () => ((await jwks()).length === 1 ? true : undefined), 12_000);
    expect(await jwks()).toEqual([second.kid]);
    expect((await cli('list-signing-keys')).map((key) => key.state)).toEqual(['retired', 'signing']);
    // A token of the retired key is refused for its key alone, even on a clock turned back into its life.
    const issuedAt = JSON.parse(Buffer.from(before.split('.')[1]!, 'base64url').toString()) as { iat: number };
    const rewound = createVerifier({
      resource: tenant.publicKey,
      jwksUrl: `${s.stack.gatewayUrl}/.well-known/jwks.json`,
      now: () => issuedAt.iat * 1000,
    });
    await expect(rewound.verify(before)).rejects.toMatchObject({ name: 'EntitlementTokenRefused', reason: 'unknown_key' });
  });
});
