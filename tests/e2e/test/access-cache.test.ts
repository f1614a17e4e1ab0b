import { describe, expect, it } from 'vitest';
import { accessKit } from './access-support.js';
import { eventually, useStack } from './support.js';

/**
 * Relationship changes reach the gateway's session-check cache (docs/adr/0042) by their
 * announcement: with a lifetime far longer than any test, whatever a test sees change, the
 * announcement changed.
 */
describe('member access: the session-check cache follows relationship changes', () => {
  const s = useStack({ env: { AUTH_CACHE_TTL_MS: '60000' } });
  const kit = accessKit(s);

  /** Polls a read until it fails with `error` (the announcement arrives asynchronously). */
  const eventuallyFails = (read: () => ReturnType<typeof kit.call>, error: string) =>
    eventually(async () => ((await read()).body['error'] === error ? true : undefined));

  it('a suspension refuses cached member checks at once; a restore refuses old sessions and new ones work', async () => {
    const { home, elsewhere, member, here, there } = await kit.signedInAtBoth();
    const readHere = () => kit.call(home, here.token, '/user/plans', { query: 'page=1' });
    const readThere = () => kit.call(elsewhere, there.token, '/user');
    // Cached: the session here, and the member's session of the other resource there.
    expect((await readHere()).status).toBe(200);
    expect((await readThere()).status).toBe(200);

    expect((await kit.call(home, here.token, '/user/suspend', { method: 'POST' })).status).toBe(200);
    await eventuallyFails(readHere, 'auth_access_fail');
    expect((await readThere()).status).toBe(200);

    // The restore revokes the session here from before; a new sign-in works.
    await kit.operator().restoreMemberAccess({ resourceId: home.resourceId, userId: member.id, email: '' });
    await eventuallyFails(readHere, 'token_expired');
    const again = await kit.signedIn(home, member);
    expect((await kit.call(home, again.token, '/user')).status).toBe(200);
    expect((await readThere()).status).toBe(200);
  });

  it('sessions the device limit revokes are refused at once', async () => {
    const { home, member } = await kit.memberOfTwo({ settings: { device_limit: 1 } });
    const first = await kit.signedIn(home, member);
    expect((await kit.call(home, first.token, '/user')).status).toBe(200);
    await kit.signedIn(home, member);
    await eventuallyFails(() => kit.call(home, first.token, '/user'), 'token_expired');
  });
});
