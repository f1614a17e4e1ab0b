import { createMember, createTenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { anyIsoDate, anyRequestId, anyToken, collectEvents, eventually, useStack } from './support.js';

/** POST /registration (document 1, section B; the request design is in docs/adr/0004). */
describe('POST /registration', () => {
  // Every request here comes from 127.0.0.1; the per-address limit has its own stack below.
  const s = useStack({ env: { REGISTRATION_LIMIT_PER_HOUR: '1000' } });
  const strongPassword = 'correct horse battery staple';

  it('creates the member, joins the resource and signs in (201, session result)', async () => {
    const tenant = await createTenant(s.stack);
    const events = collectEvents(s.nats, 'user_signup');
    await s.nats.flush();
    const response = await s.api('/registration', {
      headers: { resource: tenant.publicKey },
      json: { email: '  New.Reader@Example.TEST ', password: strongPassword, first_name: ' Ada ' },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      id: expect.any(Number),
      email: 'new.reader@example.test',
      active: true,
      first_name: 'Ada',
      email_confirmed: false,
      created_at: anyIsoDate,
      token_type: 'bearer',
      token: anyToken,
      refresh_token: anyToken,
      session_id: expect.any(Number),
      subscriptions: [],
      teams: [],
    });
    const user = await s.api('/user', { headers: { resource: tenant.publicKey, token: response.body['token'] as string } });
    expect(user.status).toBe(200);
    await eventually(async () => events.find((event) => (event['payload'] as { user_id: number }).user_id === response.body['id']));
    const stored = await s.db('identity').collection('users').findOne({ email: 'new.reader@example.test' });
    expect(stored?.['password_hash']).toMatch(/^\$argon2id\$/);
  });

  it('accepts form fields and a 64-character password, verbatim', async () => {
    const tenant = await createTenant(s.stack);
    const password = ` ${'p'.repeat(30)} ünïcode ${'q'.repeat(23)} `;
    expect([...password].length).toBe(64);
    const email = `form-${Date.now()}@example.test`;
    const response = await s.api('/registration', { headers: { resource: tenant.publicKey }, form: { email, password } });
    expect(response.status).toBe(201);
    const signIn = await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: { email, password } });
    expect(signIn.status).toBe(200);
    expect(
      (await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: { email, password: password.trim() } })).status,
    ).toBe(401);
  });

  it.each([
    [{ password: strongPassword }, 'invalid_email'],
    [{ email: 'not-an-email', password: strongPassword }, 'invalid_email'],
    [{ email: 'x@example.test' }, 'invalid_password'],
    [{ email: 'x@example.test', password: 'short1' }, 'invalid_password'],
    [{ email: 'x@example.test', password: 'Password1' }, 'invalid_password'],
    [{ email: 'x@example.test', password: 'p'.repeat(1025) }, 'invalid_password'],
    [{ email: 'x@example.test', password: true }, 'invalid_password'],
  ])('%j → 409 %s', async (body, error) => {
    const tenant = await createTenant(s.stack);
    const response = await s.api('/registration', { headers: { resource: tenant.publicKey }, json: body });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ error, error_description: expect.any(String), req_guid: anyRequestId });
  });

  it('refuses over-long names with field errors and writes nothing', async () => {
    const tenant = await createTenant(s.stack);
    const email = `long-${Date.now()}@example.test`;
    const response = await s.api('/registration', {
      headers: { resource: tenant.publicKey },
      json: { email, password: strongPassword, last_name: 'x'.repeat(256) },
    });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ error: true, error_fields: { last_name: 'at most 255 characters' }, req_guid: anyRequestId });
    expect(await s.db('identity').collection('users').countDocuments({ email })).toBe(0);
  });

  it('answers the missing body and a missing resource with their errors, never a 500', async () => {
    const tenant = await createTenant(s.stack);
    expect(
      (await s.api('/registration', { headers: { resource: tenant.publicKey, 'content-type': 'application/json' }, raw: '{oops' })).body[
        'error'
      ],
    ).toBe('invalid_email');
    expect((await s.api('/registration', { json: { email: 'a@example.test', password: strongPassword } })).body['error']).toBe(
      'resource_not_exists',
    );
  });

  it('refuses an email that is already a member here, and lets an existing account join with its own password', async () => {
    const home = await createTenant(s.stack);
    const other = await createTenant(s.stack);
    const member = await createMember(s.stack, home);
    const again = await s.api('/registration', {
      headers: { resource: home.publicKey },
      json: { email: member.email, password: member.password },
    });
    expect(again.status).toBe(409);
    expect(again.body['error']).toBe('user_exists');
    const wrong = await s.api('/registration', {
      headers: { resource: other.publicKey },
      json: { email: member.email, password: strongPassword },
    });
    expect(wrong.body['error']).toBe('user_exists');
    const joined = await s.api('/registration', {
      headers: { resource: other.publicKey },
      json: { email: member.email, password: member.password },
    });
    expect(joined.status).toBe(201);
    expect(joined.body['id']).toBe(member.id);
  });

  it('creates one account for parallel registrations of one email', async () => {
    const tenant = await createTenant(s.stack);
    const email = `race-${Date.now()}@example.test`;
    const results = await Promise.all(
      [1, 2, 3, 4].map(() =>
        s.api('/registration', { headers: { resource: tenant.publicKey }, json: { email, password: strongPassword } }),
      ),
    );
    expect(results.filter((result) => result.status === 201)).toHaveLength(1);
    // The rest: 429 while the winner is in progress (docs/adr/0091), 409 once it has finished.
    const losers = results.filter((result) => result.status !== 201);
    expect(losers.map((result) => result.body['error'])).toEqual(
      losers.map((result) => (result.status === 429 ? 'too_many_requests' : 'user_exists')),
    );
    expect(losers.every((result) => result.status === 409 || result.status === 429)).toBe(true);
    expect(await s.db('identity').collection('users').countDocuments({ email })).toBe(1);
  });
});

describe('POST /registration per-address limit', () => {
  const s = useStack({ env: { REGISTRATION_LIMIT_PER_HOUR: '3' } });

  it('refuses the fourth registration from one address within the hour: 429 too_many_requests', async () => {
    const tenant = await createTenant(s.stack);
    const register = (index: number) =>
      s.api('/registration', {
        headers: { resource: tenant.publicKey },
        json: { email: `limit-${index}-${Date.now()}@example.test`, password: 'correct horse battery staple' },
      });
    for (const index of [1, 2, 3]) expect((await register(index)).status).toBe(201);
    const refused = await register(4);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'too_many_requests', error_description: expect.any(String), req_guid: anyRequestId });
  });
});
