import { randomBytes } from 'node:crypto';
import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { expectError, expireCodes, mailbox, mailEvent, sessionResult } from './recovery-support.js';
import { anyRequestId, useStack } from './support.js';

/** Codes sent to members (docs/adr/0055, 0056, 0058): confirmation, reset, email change. */
describe('codes sent to members', () => {
  // Every request comes from 127.0.0.1: the limits get their own stack below.
  const s = useStack({
    env: {
      REGISTRATION_LIMIT_PER_HOUR: '1000',
      CODE_REQUEST_LIMIT_PER_HOUR: '1000',
      CODE_REQUEST_ACCOUNT_LIMIT_PER_HOUR: '1000',
      CODE_ATTEMPT_LIMIT_PER_HOUR: '1000',
    },
  });
  const strongPassword = 'correct horse battery staple';
  const newPassword = 'another horse, another staple';
  const uniqueEmail = (label: string) => `${label}-${randomBytes(5).toString('hex')}@example.test`;
  const post = (tenant: Tenant, path: string, json: unknown) => s.api(path, { headers: { resource: tenant.publicKey }, json });
  const register = async (tenant: Tenant, email: string) => {
    const response = await post(tenant, '/registration', { email, password: strongPassword });
    expect(response.status).toBe(201);
    return response.body as { id: number; token: string };
  };
  /** Requests a password reset for `email` in `tenant`; the code that was mailed. */
  const resetCode = async (tenant: Tenant, email: string) => {
    const mail = mailbox(s, 'password_reset_requested');
    await mail.ready();
    await post(tenant, '/reset-password', { email });
    return mail.code(email);
  };
  /** A new member of a new resource, and the confirmation code that registration mailed. */
  const signUpWithCode = async (label: string) => {
    const tenant = await createTenant(s.stack);
    const mail = mailbox(s, 'email_confirmation_requested');
    await mail.ready();
    const email = uniqueEmail(label);
    const member = await register(tenant, email);
    return { tenant, mail, email, member, code: await mail.code(email) };
  };

  describe('email confirmation', () => {
    it('registration mails a confirmation code; POST /confirm-email confirms the address, once', async () => {
      const { tenant, mail, email, member, code } = await signUpWithCode('signup');
      expect(await mail.received(email)).toEqual(mailEvent('email_confirmation_requested', tenant.resourceId, member.id, email));

      const confirmed = await post(tenant, '/confirm-email', { code });
      expect({ status: confirmed.status, body: confirmed.body }).toEqual({ status: 200, body: { result: true, email } });
      const user = await s.api('/user', { headers: { resource: tenant.publicKey, token: member.token } });
      expect(user.body['email_confirmed']).toBe(true);
      expectError(await post(tenant, '/confirm-email', { code }), 400, 'code_failed');
    });

    it('stores the code only as a hash, and the event carries nothing else secret', async () => {
      const { code } = await signUpWithCode('hashed');
      const dump = JSON.stringify(await s.db('identity').collection('member_codes').find().toArray());
      expect(dump).not.toContain(code);
      expect(dump).not.toContain(code.slice(16));
    });

    it('resends a new code to an unconfirmed member, which replaces the earlier one; form fields work', async () => {
      const { tenant, mail, email, code: first } = await signUpWithCode('resend');
      const resent = await s.api('/resend-confirmation', {
        headers: { resource: tenant.publicKey },
        form: { email: ` ${email.toUpperCase()} ` },
      });
      expect({ status: resent.status, body: resent.body }).toEqual({ status: 200, body: { result: true } });
      const second = await mail.code(email, 2);
      expect(second).not.toBe(first);
      expectError(await post(tenant, '/confirm-email', { code: first }), 400, 'code_failed');
      expect((await post(tenant, '/confirm-email', { code: second })).status).toBe(200);
    });

    it('answers a known, an unknown and an already confirmed email alike, and mails only the unconfirmed member', async () => {
      const tenant = await createTenant(s.stack);
      const mail = mailbox(s, 'email_confirmation_requested');
      await mail.ready();
      const unconfirmed = uniqueEmail('known');
      await register(tenant, unconfirmed);
      await mail.received(unconfirmed);
      const confirmed = await createMember(s.stack, tenant, { email: uniqueEmail('confirmed') });
      const unknown = uniqueEmail('unknown');
      const answers = await Promise.all(
        [unknown, confirmed.email, unconfirmed].map((email) => post(tenant, '/resend-confirmation', { email })),
      );
      for (const answer of answers) expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: { result: true } });
      await mail.received(unconfirmed, 2);
      expect(mail.sentTo(unknown) + mail.sentTo(confirmed.email)).toBe(0);
    });

    it('refuses a code of another resource, an expired code, a reset code and garbage with 400 code_failed', async () => {
      const { tenant, email, code } = await signUpWithCode('refused');
      const other = await createTenant(s.stack);
      expectError(await post(other, '/confirm-email', { code }), 400, 'code_failed');
      expectError(await post(tenant, '/confirm-email', { code: await resetCode(tenant, email) }), 400, 'code_failed');
      expectError(await post(tenant, '/confirm-email', { code: 'x'.repeat(48) }), 400, 'code_failed');
      expectError(await post(tenant, '/confirm-email', { code: 'é'.repeat(5000) }), 400, 'code_failed');
      await expireCodes(s, { email });
      expectError(await post(tenant, '/confirm-email', { code }), 400, 'code_failed');
    });

    it.each([[{}], [{ code: '' }], [{ code: '   ' }], [{ code: 12345 }], [{ code: ['a'] }], ['not an object']])(
      'a missing code %j → 409 invalid_code',
      async (body) => {
        const tenant = await createTenant(s.stack);
        expectError(await post(tenant, '/confirm-email', body), 409, 'invalid_code');
      },
    );

    it('answers a malformed body and a missing resource with their errors, never a 500', async () => {
      const tenant = await createTenant(s.stack);
      const malformed = { headers: { resource: tenant.publicKey, 'content-type': 'application/json' }, raw: '{"code":' };
      expectError(await s.api('/confirm-email', malformed), 409, 'invalid_code');
      expectError(await s.api('/resend-confirmation', malformed), 409, 'invalid_email');
      expectError(await s.api('/reset-password', malformed), 409, 'invalid_email');
      expectError(await s.api('/confirm-password', malformed), 409, 'invalid_code');
      expectError(await s.api('/confirm-email', { json: { code: 'x' } }), 404, 'resource_not_exists');
    });
  });

  describe('password reset', () => {
    it('mails a reset code; POST /confirm-password sets the new password, revokes every other session and signs in', async () => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant, { email: uniqueEmail('reset') });
      const signedIn = await post(tenant, '/authorization', { email: member.email, password: member.password });
      const oldToken = signedIn.body['token'] as string;
      const oldRefresh = signedIn.body['refresh_token'] as string;
      const mail = mailbox(s, 'password_reset_requested');
      await mail.ready();

      const requested = await post(tenant, '/reset-password', { email: member.email });
      expect({ status: requested.status, body: requested.body }).toEqual({ status: 200, body: { result: true } });
      expect(await mail.received(member.email)).toEqual(mailEvent('password_reset_requested', tenant.resourceId, member.id, member.email));
      const code = await mail.code(member.email);

      const confirmed = await post(tenant, '/confirm-password', { code, password: newPassword });
      expect(confirmed.status).toBe(200);
      expect(confirmed.body).toEqual(sessionResult(member.id, member.email, true));
      const newToken = confirmed.body['token'] as string;
      expect((await s.api('/user', { headers: { resource: tenant.publicKey, token: newToken } })).status).toBe(200);
      expectError(await s.api('/user', { headers: { resource: tenant.publicKey, token: oldToken } }), 401, 'token_expired');
      expectError(await post(tenant, '/authorization/refresh', { refresh_token: oldRefresh }), 401, 'refresh_failed');
      expectError(await post(tenant, '/authorization', { email: member.email, password: member.password }), 401, 'authorization_fail');
      expect((await post(tenant, '/authorization', { email: member.email, password: newPassword })).status).toBe(200);
      expectError(await post(tenant, '/confirm-password', { code, password: newPassword }), 400, 'code_failed');
    });

    it('answers an unknown email exactly like a known one, in about the same time, and mails only the known', async () => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant, { email: uniqueEmail('parity') });
      const mail = mailbox(s, 'password_reset_requested');
      await mail.ready();
      const timed = async (email: string) => {
        const started = performance.now();
        const response = await post(tenant, '/reset-password', { email });
        return {
          ms: performance.now() - started,
          status: response.status,
          body: response.body,
          type: response.headers.get('content-type'),
        };
      };
      const known: number[] = [];
      const unknown: number[] = [];
      for (let round = 0; round < 6; round++) {
        const a = await timed(member.email);
        const b = await timed(uniqueEmail('nobody'));
        expect({ ...b, ms: 0 }).toEqual({ ...a, ms: 0 });
        known.push(a.ms);
        unknown.push(b.ms);
      }
      // The lookup runs after the answer, so the answer cannot wait on it. Loose bound: shared machine.
      const median = (values: number[]) => values.sort((x, y) => x - y)[3]!;
      expect(median(known)).toBeLessThan(median(unknown) * 3 + 15);
      await mail.received(member.email, 6);
    });

    it('refuses a weak new password without spending the code (409 invalid_password)', async () => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant, { email: uniqueEmail('weak') });
      const code = await resetCode(tenant, member.email);
      for (const password of ['short', 'Password1', 'p'.repeat(1025), undefined, 12345678]) {
        expectError(await post(tenant, '/confirm-password', { code, password }), 409, 'invalid_password');
      }
      expect((await post(tenant, '/confirm-password', { code, password: newPassword })).status).toBe(200);
    });

    it('refuses an expired code, a code of another resource and a confirmation code (400 code_failed); a missing code is 409', async () => {
      const tenant = await createTenant(s.stack);
      const other = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant, { email: uniqueEmail('expired') });
      const confirmations = mailbox(s, 'email_confirmation_requested');
      await confirmations.ready();
      const code = await resetCode(tenant, member.email);
      expectError(await post(other, '/confirm-password', { code, password: newPassword }), 400, 'code_failed');
      expectError(await post(tenant, '/confirm-password', { password: newPassword }), 409, 'invalid_code');
      const unconfirmed = uniqueEmail('confirmation');
      await register(tenant, unconfirmed);
      expectError(
        await post(tenant, '/confirm-password', { code: await confirmations.code(unconfirmed), password: newPassword }),
        400,
        'code_failed',
      );
      await expireCodes(s, { email: member.email });
      expectError(await post(tenant, '/confirm-password', { code, password: newPassword }), 400, 'code_failed');
    });

    it('lets a member of another resource reset there and join it; the global password changes everywhere', async () => {
      const home = await createTenant(s.stack);
      const other = await createTenant(s.stack);
      const member = await createMember(s.stack, home, { email: uniqueEmail('joins') });
      const confirmed = await post(other, '/confirm-password', { code: await resetCode(other, member.email), password: newPassword });
      expect(confirmed.body).toEqual(sessionResult(member.id, member.email, true));
      expect((await post(home, '/authorization', { email: member.email, password: newPassword })).status).toBe(200);
    });

    it('does not sign in a member whose relationship is suspended (401 authorization_fail)', async () => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant, { email: uniqueEmail('suspended') });
      const code = await resetCode(tenant, member.email);
      await s
        .db('identity')
        .collection('relationships')
        .updateOne({ _id: `${tenant.resourceId}:${member.id}` as never }, { $set: { status: 'suspended' } });
      expectError(await post(tenant, '/confirm-password', { code, password: newPassword }), 401, 'authorization_fail');
      expectError(await post(tenant, '/authorization', { email: member.email, password: newPassword }), 401, 'authorization_fail');
    });

    it.each([[{}], [{ email: 'not-an-email' }], [{ email: 42 }], [{ email: `${'a'.repeat(250)}@example.test` }], ['[]']])(
      '%j → 409 invalid_email',
      async (body) => {
        const tenant = await createTenant(s.stack);
        expectError(await post(tenant, '/reset-password', body), 409, 'invalid_email');
        expectError(await post(tenant, '/resend-confirmation', body), 409, 'invalid_email');
      },
    );

    it('answers an international address like any address nobody has, and controls as invalid (ADR 0082), never a 500', async () => {
      const tenant = await createTenant(s.stack);
      for (const path of ['/reset-password', '/resend-confirmation']) {
        const response = await post(tenant, path, { email: 'ünï@exämple.test' });
        expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { result: true } });
        for (const email of ['a\u0000b@example.test', '\u202eevil@example.test\ud800'])
          expectError(await post(tenant, path, { email }), 409, 'invalid_email');
      }
    });
  });

  describe('email change (PUT /user/email)', () => {
    const changeEmail = (tenant: Tenant, token: string, json: unknown) =>
      s.api('/user/email', { method: 'PUT', headers: { resource: tenant.publicKey, token }, json });
    /** A signed-in member of a new resource, and a mailbox for email-change codes. */
    const signedInMember = async (label: string) => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant, { email: uniqueEmail(label) });
      const token = (await post(tenant, '/authorization', { email: member.email, password: member.password })).body['token'] as string;
      const mail = mailbox(s, 'email_change_requested');
      await mail.ready();
      return { tenant, member, token, mail };
    };

    it('mails a code to the new address; confirming it moves the account there', async () => {
      const { tenant, member, token, mail } = await signedInMember('before');
      const target = uniqueEmail('after');
      const requested = await changeEmail(tenant, token, { email: target.toUpperCase(), password: member.password });
      expect({ status: requested.status, body: requested.body }).toEqual({ status: 200, body: { result: true } });
      expect(await mail.received(target)).toEqual(mailEvent('email_change_requested', tenant.resourceId, member.id, target));
      expect((await s.api('/user', { headers: { resource: tenant.publicKey, token } })).body['email']).toBe(member.email);

      const confirmed = await post(tenant, '/confirm-email', { code: await mail.code(target) });
      expect(confirmed.body).toEqual({ result: true, email: target });
      const user = await s.api('/user', { headers: { resource: tenant.publicKey, token } });
      expect({ email: user.body['email'], email_confirmed: user.body['email_confirmed'] }).toEqual({
        email: target,
        email_confirmed: true,
      });
      expect((await post(tenant, '/authorization', { email: target, password: member.password })).status).toBe(200);
      expectError(await post(tenant, '/authorization', { email: member.email, password: member.password }), 401, 'authorization_fail');
    });

    it('refuses a wrong or missing current password, the same address, a taken address and a bad one', async () => {
      const { tenant, member, token } = await signedInMember('guarded');
      const taken = await createMember(s.stack, tenant, { email: uniqueEmail('taken') });
      const target = uniqueEmail('target');
      expectError(await changeEmail(tenant, token, { email: target, password: 'wrong password' }), 409, 'invalid_password');
      expectError(await changeEmail(tenant, token, { email: target }), 409, 'invalid_password');
      expectError(await changeEmail(tenant, token, { email: target, password: ['x'] }), 409, 'invalid_password');
      expectError(await changeEmail(tenant, token, { email: member.email, password: member.password }), 409, 'invalid_email');
      expectError(await changeEmail(tenant, token, { email: 'nope', password: member.password }), 409, 'invalid_email');
      expectError(await changeEmail(tenant, token, { email: taken.email, password: member.password }), 409, 'user_exists');
      expectError(await changeEmail(tenant, '', { email: target, password: member.password }), 401, 'auth_failed');
    });

    it('answers 409 user_exists when the new address was taken before the code was confirmed', async () => {
      const { tenant, member, token, mail } = await signedInMember('slow');
      const target = uniqueEmail('contested');
      await changeEmail(tenant, token, { email: target, password: member.password });
      const code = await mail.code(target);
      await createMember(s.stack, tenant, { email: target });
      expectError(await post(tenant, '/confirm-email', { code }), 409, 'user_exists');
    });
  });
});

describe('limits on code requests and uses', () => {
  const s = useStack({
    env: { CODE_REQUEST_LIMIT_PER_HOUR: '3', CODE_REQUEST_ACCOUNT_LIMIT_PER_HOUR: '2', CODE_ATTEMPT_LIMIT_PER_HOUR: '3' },
  });

  it('limits reset requests per account (known or not), then per address: 429 too_many_requests', async () => {
    const tenant = await createTenant(s.stack);
    const reset = (email: string) => s.api('/reset-password', { headers: { resource: tenant.publicKey }, json: { email } });
    const unknown = `nobody-${randomBytes(4).toString('hex')}@example.test`;
    expect((await reset(unknown)).status).toBe(200);
    expect((await reset(unknown)).status).toBe(200);
    expectError(await reset(unknown), 429, 'too_many_requests');
    // The address has made three requests now; the fourth is refused whatever the email.
    expectError(await reset(`other-${randomBytes(4).toString('hex')}@example.test`), 429, 'too_many_requests');
  });

  it('limits code uses (guesses) per address: 429 too_many_requests', async () => {
    const tenant = await createTenant(s.stack);
    const guess = () =>
      s.api('/confirm-email', { headers: { resource: tenant.publicKey }, json: { code: randomBytes(36).toString('base64url') } });
    for (let i = 0; i < 3; i++) expect((await guess()).status).toBe(400);
    const refused = await guess();
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'too_many_requests', error_description: expect.any(String), req_guid: anyRequestId });
  });
});
