import { randomBytes } from 'node:crypto';
import { createMember, createTenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { memberProjection, signedIn, signIn } from './profile-support.js';
import { anyIsoDate, anyRequestId, collectEvents, eventually, useStack, type StackHandle } from './support.js';

/** PUT /user, GET /user/tags and POST /user/history (document 1, section C; docs/adr/0060, 0061, 0064). */
describe('member profile writes', () => {
  const s = useStack();

  it('applies every field of the table and answers the user projection', async () => {
    const { tenant, member, headers } = await signedIn(s);
    await s
      .db('identity')
      .collection('relationships')
      .updateOne({ _id: `${tenant.resourceId}:${member.id}` } as never, { $set: { extra: { kept: 1 } } });
    const nick = uniqueNick();
    const response = await s.api('/user', {
      method: 'PUT',
      headers,
      json: {
        nick_name: `  ${nick}!! `,
        first_name: '  Ada ',
        last_name: 'Lovelace',
        country: ' GB ',
        city: 'London',
        state: 'England',
        address: '12 St James’s Square',
        ip: ' 203.0.113.9 ',
        company: 'Analytical Engines',
        job: 'Programmer',
        zip: 'SW1Y 4LB',
        phone: '+44 20 0000 0000',
        extra: { favourite: 'notes', nested: { a: [1, 2] } },
        language_id: 83,
        tags: ['Science', ' history of Computing '],
        unknown_key: 'ignored',
      },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(
      memberProjection(member, {
        nick_name: nick,
        first_name: 'Ada',
        last_name: 'Lovelace',
        country: 'GB',
        city: 'London',
        state: 'England',
        address: '12 St James’s Square',
        zip: 'SW1Y 4LB',
        phone: '+44 20 0000 0000',
        company: 'Analytical Engines',
        job: 'Programmer',
        language_id: 83,
        extra: { kept: 1, favourite: 'notes', nested: { a: [1, 2] } },
        tags: ['science', 'history-of-computing'],
      }),
    );
    const stored = await s
      .db('identity')
      .collection('users')
      .findOne({ _id: member.id } as never);
    expect(stored?.['ip']).toBe('203.0.113.9');
    const read = await s.api('/user', { headers });
    expect(read.body).toMatchObject({ nick_name: nick, first_name: 'Ada', language_id: 83, extra: { kept: 1, favourite: 'notes' } });
    expect(await s.api('/user/tags', { headers })).toMatchObject({ status: 200, body: { tags: ['science', 'history-of-computing'] } });
  });

  it('leaves omitted and null fields unchanged, clears with an empty string, and keeps the language on null', async () => {
    const { headers } = await signedIn(s);
    await put(s, headers, { first_name: 'Grace', last_name: 'Hopper', city: 'Arlington', language_id: 118 });
    const response = await put(s, headers, { first_name: null, city: '   ', language_id: null, language_slug: '' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ first_name: 'Grace', last_name: 'Hopper', city: null, language_id: 118 });
    expect(response.body).not.toHaveProperty('tags');
  });

  it('processes language_slug after language_id, so the slug wins', async () => {
    const { headers } = await signedIn(s);
    const response = await put(s, headers, { language_id: 83, language_slug: ' FR ' });
    expect(response.body).toMatchObject({ language_id: 148 });
  });

  it('keeps nick names unique regardless of case, and null gives one up', async () => {
    const tenant = await createTenant(s.stack);
    const first = await signedIn(s, tenant);
    const second = await signedIn(s, tenant);
    const nick = uniqueNick();
    expect((await put(s, first.headers, { nick_name: nick })).status).toBe(200);
    // The holder may send it again in another case.
    expect((await put(s, first.headers, { nick_name: nick.toUpperCase() })).body).toMatchObject({ nick_name: nick.toUpperCase() });
    const taken = await put(s, second.headers, { nick_name: nick.toLowerCase(), first_name: 'Not written' });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({ error: true, error_fields: { nick_name: 'is taken by another member' }, req_guid: anyRequestId });
    expect((await s.api('/user', { headers: second.headers })).body).toMatchObject({ first_name: null, nick_name: null });

    expect((await put(s, first.headers, { nick_name: null })).body).toMatchObject({ nick_name: null });
    expect((await put(s, second.headers, { nick_name: nick })).body).toMatchObject({ nick_name: nick });
  });

  it('gives a nick name to exactly one of several members asking at once', async () => {
    const tenant = await createTenant(s.stack);
    const members = await Promise.all(Array.from({ length: 4 }, () => signedIn(s, tenant)));
    const nick = uniqueNick();
    const answers = await Promise.all(members.map(({ headers }) => put(s, headers, { nick_name: nick })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409]);
    const holders = await s.db('identity').collection('users').countDocuments({ nick_name: nick });
    expect(holders).toBe(1);
  });

  it('filters nick names (emoji, bidi controls, NUL, lone surrogates) and counts 3 to 64 after filtering', async () => {
    const { headers } = await signedIn(s);
    const suffix = randomBytes(3).toString('hex');
    // Raw JSON, so that a lone surrogate and NUL reach the server as sent.
    const raw = `{"nick_name": "\\u202eא\\u0301ב😀\\u0000\\ud800_${suffix}"}`;
    const filtered = await s.api('/user', { method: 'PUT', headers: { ...headers, 'content-type': 'application/json' }, raw });
    expect(filtered.status).toBe(200);
    expect(filtered.body).toMatchObject({ nick_name: `א\u0301ב_${suffix}` });

    for (const nickName of ['a😀b', '\u0301\u0301\u0301', 'x'.repeat(65), '']) {
      const refused = await put(s, headers, { nick_name: nickName });
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({
        error: true,
        error_fields: { nick_name: 'must have 3 to 64 letters, digits or _ . - after filtering' },
        req_guid: anyRequestId,
      });
    }
    expect((await put(s, headers, { nick_name: `${'x'.repeat(58)}😀${suffix}` })).body).toMatchObject({
      nick_name: `${'x'.repeat(58)}${suffix}`,
    });
  });

  it('replaces tags across resources: other resources lose theirs, [] clears, non-arrays are ignored', async () => {
    const tenantA = await createTenant(s.stack);
    const tenantB = await createTenant(s.stack);
    const a = await signedIn(s, tenantA);
    await createMember(s.stack, tenantB, { email: a.member.email, password: a.member.password });
    const b = { resource: tenantB.publicKey, token: (await signIn(s, tenantB, a.member.email, a.member.password)).body['token'] as string };

    expect((await put(s, a.headers, { tags: ['alpha', 'beta', 'alpha'] })).body).toMatchObject({ tags: ['alpha', 'beta'] });
    expect((await s.api('/user/tags', { headers: a.headers })).body).toEqual({ tags: ['alpha', 'beta'] });

    expect((await put(s, b, { tags: ['gamma'] })).body).toMatchObject({ tags: ['gamma'] });
    expect((await s.api('/user/tags', { headers: a.headers })).body).toEqual({ tags: [] });
    expect((await s.api('/user/tags', { headers: b })).body).toEqual({ tags: ['gamma'] });

    for (const ignored of ['delta', { x: 'delta' }, null, 5]) {
      const response = await put(s, b, { tags: ignored });
      expect(response.status).toBe(200);
      expect(response.body).not.toHaveProperty('tags');
    }
    expect((await s.api('/user/tags', { headers: b })).body).toEqual({ tags: ['gamma'] });

    const cleared = await put(s, b, { tags: [] });
    expect(cleared.body).toMatchObject({ tags: [] });
    expect((await s.api('/user/tags', { headers: b })).body).toEqual({ tags: [] });
  });

  it.each<{ tags: unknown[]; reason: string }>([
    { tags: ['ok-tag', 'no'], reason: 'too short' },
    { tags: ['x'.repeat(26)], reason: 'too long' },
    { tags: [''], reason: 'empty' },
    { tags: [{ slug: 'object' }], reason: 'an object' },
    { tags: [['nested']], reason: 'an array' },
    { tags: [123], reason: 'a number' },
  ])('refuses tags $tags ($reason) and writes nothing', async ({ tags }) => {
    const { headers } = await signedIn(s);
    await put(s, headers, { tags: ['kept'] });
    const response = await put(s, headers, { tags, first_name: 'Not written' });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      error: true,
      error_fields: { tags: 'each tag is a string of 3 to 25 characters' },
      req_guid: anyRequestId,
    });
    expect((await s.api('/user/tags', { headers })).body).toEqual({ tags: ['kept'] });
    expect((await s.api('/user', { headers })).body).toMatchObject({ first_name: null });
  });

  it('refuses email, wrong types, unknown languages and unstorable text, all at once and without writing', async () => {
    const { headers } = await signedIn(s);
    const response = await put(s, headers, {
      email: 'other@example.test',
      nick_name: 42,
      first_name: true,
      last_name: ['Lovelace'],
      city: 'x'.repeat(256),
      company: 'Nul\u0000Corp',
      extra: ['not', 'an', 'object'],
      language_id: 'abc',
      language_slug: 7,
    });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      error: true,
      error_fields: {
        email: 'cannot be changed here; use PUT /user/email',
        nick_name: 'must be a string',
        first_name: 'must be a string',
        last_name: 'must be a string',
        city: 'at most 255 characters',
        company: 'must not contain control characters',
        extra: 'must be an object',
        language_id: 'must be a language ID',
        language_slug: 'must be a language slug',
      },
      req_guid: anyRequestId,
    });

    const unknown = await put(s, headers, { language_id: 9999, language_slug: 'xx', first_name: 'Not written' });
    expect(unknown.body).toEqual({
      error: true,
      error_fields: { language_id: 'no language has this ID', language_slug: 'no language has this slug' },
      req_guid: anyRequestId,
    });

    const surrogate = await s.api('/user', {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/json' },
      raw: '{"first_name": "Ada\\udc00", "extra": {"$where": 1}}',
    });
    expect(surrogate.body).toEqual({
      error: true,
      error_fields: { first_name: 'must be valid Unicode text', extra: 'keys are 1 to 64 letters, digits, _ or -' },
      req_guid: anyRequestId,
    });
    const nested = await put(s, headers, { extra: { ok: { $set: 1 } } });
    expect(nested.body).toEqual({
      error: true,
      error_fields: { extra: 'nested keys must not be empty, start with $ or contain dots' },
      req_guid: anyRequestId,
    });

    expect((await put(s, headers, { email: null })).status).toBe(200);
    expect((await s.api('/user', { headers })).body).toMatchObject({ first_name: null, city: null, language_id: null });
  });

  it('stores right-to-left, combining and emoji text in plain fields as sent (trimmed)', async () => {
    const { headers } = await signedIn(s);
    const response = await put(s, headers, { first_name: ' שלום ', last_name: 'e\u0301\u0301', city: 'Zürich 🏔️' });
    expect(response.body).toMatchObject({ first_name: 'שלום', last_name: 'e\u0301\u0301', city: 'Zürich 🏔️' });
  });

  it.each([
    ['malformed JSON', '{"first_name": '],
    ['a JSON array', '[{"first_name": "Ada"}]'],
    ['a JSON string', '"Ada"'],
    ['no body', ''],
  ])('answers 409 incorrect_data for %s', async (_label, raw) => {
    const { headers } = await signedIn(s);
    const response = await s.api('/user', { method: 'PUT', headers: { ...headers, 'content-type': 'application/json' }, raw });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ error: 'incorrect_data', error_description: 'The body must be a JSON object', req_guid: anyRequestId });
  });

  it('records a profile event, and a marketing event only when an opt-in changes', async () => {
    const { tenant, member, headers } = await signedIn(s);
    const profileEvents = collectEvents(s.nats, 'user_profile_updated');
    const marketingEvents = collectEvents(s.nats, 'user_marketing_opt_ins_changed');
    await s.nats.flush();
    await put(s, headers, { first_name: 'Ada', extra: { newsletter_weekly: true, marketing: 'not a boolean', other: true } });
    const ours = (events: Array<Record<string, unknown>>) =>
      events.filter((event) => (event['payload'] as { user_id: number }).user_id === member.id);
    const profileEvent = await eventually(async () => ours(profileEvents)[0]);
    expect(profileEvent).toEqual({
      id: expect.any(String),
      name: 'user_profile_updated',
      source: 'identity',
      occurred_at: anyIsoDate,
      resource_id: tenant.resourceId,
      payload: { user_id: member.id, fields: ['first_name', 'extra'] },
    });
    const marketingEvent = await eventually(async () => ours(marketingEvents)[0]);
    expect(marketingEvent).toMatchObject({
      resource_id: tenant.resourceId,
      payload: { user_id: member.id, opt_ins: { newsletter_weekly: true } },
    });

    // The same choice again is no change; the profile event still records the write.
    await put(s, headers, { extra: { newsletter_weekly: true } });
    await eventually(async () => ours(profileEvents)[1]);
    await put(s, headers, { extra: { newsletter_weekly: false } });
    const second = await eventually(async () => ours(marketingEvents)[1]);
    expect(second['payload']).toEqual({ user_id: member.id, opt_ins: { newsletter_weekly: false } });
    expect(ours(marketingEvents)).toHaveLength(2);
  });

  it('answers 410 for the unavailable history write, after the member checks', async () => {
    const { tenant, headers } = await signedIn(s);
    const response = await s.api('/user/history', { method: 'POST', headers, json: { action: 'x' } });
    expect(response.status).toBe(410);
    expect(response.body).toEqual({
      error: 'history_write_unavailable',
      error_description: 'History is recorded by the service; read it with GET /user/plans/history',
      req_guid: anyRequestId,
    });
    const guest = await s.api('/user/history', { method: 'POST', headers: { resource: tenant.publicKey } });
    expect(guest.status).toBe(401);
    expect(guest.body).toMatchObject({ error: 'auth_failed' });
  });

  it('needs a signed-in member for every profile route', async () => {
    const tenant = await createTenant(s.stack);
    for (const [method, path] of [
      ['PUT', '/user'],
      ['GET', '/user/tags'],
    ] as const) {
      const response = await s.api(path, { method, headers: { resource: tenant.publicKey } });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: 'auth_failed', error_description: expect.any(String), req_guid: anyRequestId });
    }
  });
});

const put = (s: StackHandle, headers: Record<string, string>, json: unknown) => s.api('/user', { method: 'PUT', headers, json });

const uniqueNick = () => `Reader_${randomBytes(4).toString('hex')}`;
