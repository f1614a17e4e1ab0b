import { createMember, createTenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { anyRequestId, eventually, useStack } from './support.js';

/** Guessing limits and timing parity of POST /authorization (identity issue, "Bad input and abuse"). */
describe('sign-in abuse resistance', () => {
  const s = useStack();

  const attempt = (publicKey: string, email: string, password: string) =>
    s.api('/authorization', { headers: { resource: publicKey }, json: { email, password } });

  it('backs off after repeated failures, refuses even the right password meanwhile, and resets on success', async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    for (let index = 0; index < 6; index++) expect((await attempt(tenant.publicKey, member.email, 'wrong-password')).status).toBe(401);
    const refused = await attempt(tenant.publicKey, member.email, member.password);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'too_many_attempts', error_description: expect.any(String), req_guid: anyRequestId });
    // The back-off after the sixth failure is one second; then the right password works again.
    await eventually(
      async () => ((await attempt(tenant.publicKey, member.email, member.password)).status === 200 ? true : undefined),
      5000,
    );
    expect(
      await s
        .db('identity')
        .collection('signin_failures')
        .countDocuments({ _id: member.email as never }),
    ).toBe(0);
  });

  it('throttles an unknown email exactly like a known one', async () => {
    const tenant = await createTenant(s.stack);
    const email = `nobody-${Date.now()}@example.test`;
    for (let index = 0; index < 6; index++) expect((await attempt(tenant.publicKey, email, 'whatever-password')).status).toBe(401);
    expect((await attempt(tenant.publicKey, email, 'whatever-password')).body['error']).toBe('too_many_attempts');
  });

  it('refuses an account at 100 failures in the hour, before hashing, whatever the back-off', async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const now = new Date();
    await s
      .db('identity')
      .collection('signin_failures')
      .insertOne({ _id: member.email as never, window_started_at: now, failures: 100, blocked_until: new Date(now.getTime() - 1000) });
    expect((await attempt(tenant.publicKey, member.email, member.password)).status).toBe(429);
    // An hour-old window no longer counts.
    await s
      .db('identity')
      .collection('signin_failures')
      .updateOne({ _id: member.email as never }, { $set: { window_started_at: new Date(now.getTime() - 3_600_001) } });
    expect((await attempt(tenant.publicKey, member.email, member.password)).status).toBe(200);
  });

  it(
    'takes the same time for an unknown email and a wrong password (median paired difference ≤ 5 ms, 100 pairs)',
    { timeout: 120_000 },
    async () => {
      const tenant = await createTenant(s.stack);
      // Twenty accounts, five wrong passwords each: below the back-off, so every sample is a real check.
      // One at a time: twenty parallel password hashes can outwait the hash queue on a loaded machine (429).
      const members = [];
      for (let index = 0; index < 20; index++) members.push(await createMember(s.stack, tenant));
      const timed = async (email: string) => {
        const started = performance.now();
        const response = await attempt(tenant.publicKey, email, 'not-the-password');
        expect(response.status).toBe(401);
        return performance.now() - started;
      };
      // Each pair runs back to back in a random order, so a drift in the machine's load (other
      // tests, other processes) affects both sides of a pair alike and cancels in its difference.
      const differences: number[] = [];
      for (let index = 0; index < 100; index++) {
        const unknownFirst = Math.random() < 0.5;
        const first = await timed(unknownFirst ? `ghost-${index}-${Date.now()}@example.test` : members[index % 20]!.email);
        const second = await timed(unknownFirst ? members[index % 20]!.email : `ghost-${index}-${Date.now()}@example.test`);
        differences.push(unknownFirst ? first - second : second - first);
      }
      const median = [...differences].sort((a, b) => a - b)[Math.floor(differences.length / 2)]!;
      expect(Math.abs(median)).toBeLessThanOrEqual(5);
    },
  );
});
