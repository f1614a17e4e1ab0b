import { createMember, createTenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { anyRequestId, useStack } from './support.js';

/**
 * The password-hash work queue (docs/adr/0004): at most HASH_CONCURRENCY hashes run and
 * HASH_QUEUE_LIMIT wait; beyond that sign-in answers 429 at once. One hash at a time and no
 * waiting room here, and slower hashes, so that a burst of sign-ins overflows for sure.
 */
describe('password-hash work queue', () => {
  const s = useStack({ env: { HASH_CONCURRENCY: '1', HASH_QUEUE_LIMIT: '0', ARGON2_ITERATIONS: '4' } });

  it('answers 429 too_many_requests to sign-ins beyond the queue and recovers when it drains', async () => {
    const tenant = await createTenant(s.stack);
    // Eight accounts: parallel sign-ins of one account are capped before the queue (docs/adr/0091).
    // One by one: with one hash at a time and no waiting room, parallel creations would be refused too.
    const members: Array<Awaited<ReturnType<typeof createMember>>> = [];
    for (let index = 0; index < 8; index++) members.push(await createMember(s.stack, tenant));
    const signIn = (member = members[0]!) =>
      s.api('/authorization', { headers: { resource: tenant.publicKey }, json: { email: member.email, password: member.password } });

    const burst = await Promise.all(members.map((member) => signIn(member)));
    const refused = burst.filter((response) => response.status === 429);
    expect(burst.filter((response) => response.status === 200).length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(burst.every((response) => response.status === 200 || response.status === 429)).toBe(true);
    for (const response of refused) {
      expect(response.body).toEqual({ error: 'too_many_requests', error_description: expect.any(String), req_guid: anyRequestId });
    }
    // A refusal is not a failed guess (no throttle record) and the queue drains: the next one passes.
    expect((await signIn()).status).toBe(200);
  });
});
