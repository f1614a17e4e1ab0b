import { randomBytes } from 'node:crypto';
import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { mailbox } from './recovery-support.js';
import { useStack } from './support.js';

/**
 * Security fields survive profile writes racing them: FerretDB rewrites a whole document per
 * update, so a PUT /user that wrote the row holding the password, role, `active` or the
 * relationship's state could write the old value back (docs/adr/0210). Each round runs the
 * security write while loops of PUT /user of the same member run, then judges by behaviour only.
 */
describe('security writes racing profile writes', () => {
  const ROUNDS = 20;
  const LANES = 6;
  const s = useStack({
    env: { CODE_REQUEST_LIMIT_PER_HOUR: '1000', CODE_REQUEST_ACCOUNT_LIMIT_PER_HOUR: '1000', CODE_ATTEMPT_LIMIT_PER_HOUR: '1000' },
  });
  const newPassword = 'another horse, another staple';

  const post = (tenant: Tenant, path: string, json: unknown, token?: string) =>
    s.api(path, { headers: { resource: tenant.publicKey, ...(token ? { token } : {}) }, json });
  const signIn = (tenant: Tenant, email: string, password: string) => post(tenant, '/authorization', { email, password });

  /** A new member of the tenant, signed in: its password and session token. */
  const signedIn = async (tenant: Tenant) => {
    const member = await createMember(s.stack, tenant, { email: `race-${randomBytes(5).toString('hex')}@example.test` });
    const response = await signIn(tenant, member.email, member.password);
    expect(response.status).toBe(200);
    return { ...member, token: response.body['token'] as string };
  };

  /** PUT /user with a profile field and an extra key: writes the user row and the relationship row. */
  const profileWrite = (tenant: Tenant, token: string, round: number, index: number) =>
    s.api('/user', {
      method: 'PUT',
      headers: { resource: tenant.publicKey, token },
      json: { city: `City ${index}`, extra: { round, index } },
    });

  /** `write` while `LANES` loops of profile writes run until it has answered; its answer. */
  const racing = async <T>(tenant: Tenant, token: string, round: number, write: () => Promise<T>): Promise<T> => {
    let done = false;
    const lane = async (lane: number) => {
      for (let index = 0; !done; index++) await profileWrite(tenant, token, round, lane * 1000 + index);
    };
    const lanes = Array.from({ length: LANES }, (_, index) => lane(index));
    try {
      return await write();
    } finally {
      done = true;
      await Promise.all(lanes);
    }
  };

  /** Sign-in takes the new password and refuses the old one. */
  const worksOnlyWith = async (tenant: Tenant, email: string, password: string, old: string) =>
    (await signIn(tenant, email, password)).status === 200 && (await signIn(tenant, email, old)).status === 401;

  /** The rounds whose `lost` check found the security write undone (none may be). */
  const lostRounds = async (play: (round: number) => Promise<boolean>) => {
    const lost: number[] = [];
    for (let round = 0; round < ROUNDS; round++) if (await play(round)) lost.push(round);
    return lost;
  };

  it('a password reset: the old password never works again', async () => {
    const tenant = await createTenant(s.stack);
    const mail = mailbox(s, 'password_reset_requested');
    await mail.ready();
    const lost = await lostRounds(async (round) => {
      const member = await signedIn(tenant);
      expect((await post(tenant, '/reset-password', { email: member.email })).status).toBe(200);
      const code = await mail.code(member.email);
      const confirmed = await racing(tenant, member.token, round, () => post(tenant, '/confirm-password', { code, password: newPassword }));
      expect(confirmed.status).toBe(200);
      return !(await worksOnlyWith(tenant, member.email, newPassword, member.password));
    });
    expect(lost).toEqual([]);
  });

  it('a resource password change: the old resource password never works again', async () => {
    const tenant = await createTenant(s.stack);
    const first = 'a resource passphrase';
    const lost = await lostRounds(async (round) => {
      const member = await signedIn(tenant);
      expect((await post(tenant, '/user/password', { password: first }, member.token)).status).toBe(200);
      const changed = await racing(tenant, member.token, round, () =>
        s.api('/user/password', {
          method: 'PUT',
          headers: { resource: tenant.publicKey, token: member.token },
          json: { current_password: first, password: newPassword },
        }),
      );
      expect(changed.status).toBe(200);
      return !(await worksOnlyWith(tenant, member.email, newPassword, first));
    });
    expect(lost).toEqual([]);
  });

  it('a suspension: the member stays suspended (sign-in refused)', async () => {
    const tenant = await createTenant(s.stack);
    const lost = await lostRounds(async (round) => {
      const member = await signedIn(tenant);
      const suspended = await racing(tenant, member.token, round, () =>
        s.api('/user/suspend', { method: 'POST', headers: { resource: tenant.publicKey, token: member.token } }),
      );
      expect(suspended.status).toBe(200);
      return (await signIn(tenant, member.email, member.password)).status !== 401;
    });
    expect(lost).toEqual([]);
  });

  it("an operator's change of password and role: the old password never works, the new role holds", async () => {
    const tenant = await createTenant(s.stack);
    const lost = await lostRounds(async (round) => {
      const member = await signedIn(tenant);
      await racing(tenant, member.token, round, () =>
        createMember(s.stack, tenant, { email: member.email, password: newPassword, role: 'admin' }),
      );
      if (!(await worksOnlyWith(tenant, member.email, newPassword, member.password))) return true;
      const again = await signIn(tenant, member.email, newPassword);
      const admin = await s.api('/admin/currency', { headers: { resource: tenant.publicKey, token: again.body['token'] as string } });
      return admin.status !== 200;
    });
    expect(lost).toEqual([]);
  });
});
