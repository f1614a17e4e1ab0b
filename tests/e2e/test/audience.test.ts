import { hexId, subscriberHash, type FakeCall, type Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { audienceKey, envelope, newTenant, setGlobalRole, signIn, useProviders, type SignedIn } from './provider-support.js';
import { anyRequestId, collectEvents, eventWhere } from './support.js';

type Json = Record<string, unknown>;

/**
 * The `audience` provider operations (document 2 H; OPERATIONS.md 89-91, 157-161; docs/adr/
 * 0160-0163) through the gateway and integrations, against the local fake of the provider's
 * Marketing API v3 (tests/stack fake-providers).
 */
describe('audience provider', () => {
  const p = useProviders();
  const s = () => p.s;

  /** The API key a fake call authenticated with (HTTP Basic password). */
  const keyOf = (call: FakeCall) =>
    Buffer.from((call.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
      .toString('utf8')
      .split(':')[1];
  const callsOf = (key: string) => p.audience.calls.filter((call) => keyOf(call) === key);

  /** A resource with its list at the fake, the operator's configuration, and a signed-in member. */
  async function configured(options: { interestCategory?: string } = {}) {
    const tenant = await newTenant(s());
    const key = audienceKey();
    const listId = hexId();
    const list = p.audience.account(key).list(listId, 'Members');
    const newsletters = list.category('Newsletters', ['*Daily* Briefing ', 'WEEKLY Digest']);
    list.category('Empty', []);
    const topics = list.category('Topics', ['Sport']);
    list.mergeField('FNAME', 'First Name');
    list.mergeField('LNAME', 'Last Name');
    list.mergeField('COMPANY', 'Company');
    await configure(tenant, key, listId, options.interestCategory ?? 'Newsletters');
    const member = await signIn(s(), tenant);
    return { tenant, key, listId, list, newsletters, topics, member };
  }
  const configure = async (tenant: Tenant, key: string, listId: string, interestCategory = 'Newsletters') => {
    const operator = p.operator();
    await operator.providerConfig.setProviderSecret({ resourceId: tenant.resourceId, provider: 'audience', secret: key });
    await operator.providerConfig.setAudienceSettings({ resourceId: tenant.resourceId, listId, interestCategory, server: '' });
  };
  const get = (path: string, member: SignedIn, query?: string) =>
    s().api(`/integrations/audience/${path}`, { headers: member.headers, query });
  const post = (path: string, member: SignedIn, json?: unknown) =>
    s().api(`/integrations/audience/${path}`, { method: 'POST', headers: member.headers, json });
  /** A signed-in member of a resource without any audience configuration. */
  const unconfigured = async () => signIn(s(), await newTenant(s()));
  const notConfigured = envelope('integration_error', 'The audience integration is not configured for this resource');

  /** The member record the fake answers, as the member sees it (no `_links`). */
  const memberBody = (email: string, listId: string, fields: Json) => ({
    id: subscriberHash(email),
    email_address: email,
    unique_email_id: expect.any(String),
    contact_id: expect.any(String),
    full_name: expect.any(String),
    web_id: expect.any(Number),
    email_type: 'html',
    status: 'subscribed',
    consents_to_one_to_one_messaging: true,
    stats: { avg_open_rate: 0, avg_click_rate: 0 },
    ip_signup: '',
    timestamp_signup: expect.any(String),
    ip_opt: '',
    timestamp_opt: expect.any(String),
    member_rating: 2,
    last_changed: expect.any(String),
    language: '',
    vip: false,
    email_client: '',
    location: { latitude: 0, longitude: 0, gmtoff: 0, dstoff: 0, country_code: '', timezone: '', region: '' },
    source: 'API - Generic',
    tags_count: 0,
    tags: [],
    list_id: listId,
    ...fields,
  });

  describe('GET /integrations/audience/interests', () => {
    it("answers the configured category's interests: provider IDs, normalized names, other fields passed through", async () => {
      const { key, listId, newsletters, member } = await configured();
      const response = await get('interests', member);
      expect(response.status, response.text).toBe(200);
      const [daily, weekly] = newsletters.interests;
      expect(response.body).toEqual({
        items: [
          { id: daily!.id, name: 'daily briefing', subscriber_count: '0' },
          { id: weekly!.id, name: 'weekly digest', subscriber_count: '0' },
        ],
      });
      // One page of 50 categories, one of 50 interests; the key in HTTP Basic.
      expect(callsOf(key).map((call) => `${call.method} ${call.path}?${call.query.toString()}`)).toEqual([
        `GET /3.0/lists/${listId}/interest-categories?count=50`,
        `GET /3.0/lists/${listId}/interest-categories/${newsletters.id}/interests?count=50`,
      ]);
    });

    it('reads one page of 50 and no more, and matches the title exactly: [] for another spelling', async () => {
      const { key, list, member, tenant, listId } = await configured({ interestCategory: 'Many' });
      list.category(
        'Many',
        Array.from({ length: 60 }, (_, index) => `Choice ${index}`),
      );
      const response = await get('interests', member);
      expect((response.body['items'] as Json[]).length).toBe(50);
      expect(callsOf(key)).toHaveLength(2);
      await configure(tenant, key, listId, 'many');
      expect((await get('interests', member)).body).toEqual({ items: [] });
    });

    it('waits out a 429 as Retry-After asks; answers [] when the provider keeps refusing or rejects the key', async () => {
      const { key, member, tenant, listId } = await configured();
      p.audience.rateLimit(1, { retryAfterSeconds: 1, match: (call) => keyOf(call) === key });
      const started = Date.now();
      const retried = await get('interests', member);
      expect((retried.body['items'] as Json[]).length).toBe(2);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(callsOf(key)).toHaveLength(3);
      // Three 429s in a row use up the call's attempts: the read answers empty.
      p.audience.rateLimit(3, { match: (call) => keyOf(call) === key });
      expect((await get('interests', member)).body).toEqual({ items: [] });
      // A key the provider does not know (401): empty too.
      await configure(tenant, audienceKey(), listId);
      expect((await get('interests', member)).body).toEqual({ items: [] });
    });

    it('answers 500 integration_error without a provider key or without settings', async () => {
      const member = await unconfigured();
      const response = await get('interests', member);
      expect(response.status).toBe(500);
      expect(response.body).toEqual(notConfigured);
      // A key without a list is no configuration either.
      const tenant = await newTenant(s());
      await p.operator().providerConfig.setProviderSecret({ resourceId: tenant.resourceId, provider: 'audience', secret: audienceKey() });
      const keyOnly = await get('interests', await signIn(s(), tenant));
      expect(keyOnly.status).toBe(500);
      expect(keyOnly.body).toEqual(notConfigured);
    });
  });

  describe('GET /integrations/audience/categories', () => {
    it('answers every category that has interests, with them; categories without interests are left out', async () => {
      const { newsletters, topics, member } = await configured();
      const response = await get('categories', member);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({
        groups: [
          {
            id: newsletters.id,
            title: 'Newsletters',
            display_order: 0,
            type: 'checkboxes',
            interests: newsletters.interests.map((interest) => ({
              id: interest.id,
              name: interest.name.replace(/\*/g, '').toLowerCase().trim(),
              subscriber_count: '0',
            })),
          },
          {
            id: topics.id,
            title: 'Topics',
            display_order: 2,
            type: 'checkboxes',
            interests: [{ id: topics.interests[0]!.id, name: 'sport', subscriber_count: '0' }],
          },
        ],
      });
    });

    it('answers [] when the provider refuses, 500 integration_error without a key', async () => {
      const { key, member } = await configured();
      p.audience.rateLimit(3, { match: (call) => keyOf(call) === key });
      expect((await get('categories', member)).body).toEqual({ groups: [] });
      const missing = await get('categories', await unconfigured());
      expect(missing.status).toBe(500);
      expect(missing.body).toEqual(notConfigured);
    });
  });

  describe('POST /integrations/audience/subscribe', () => {
    it('writes the member subscribed with its non-empty merge fields and the interests sent, and answers the record', async () => {
      const { key, listId, list, newsletters, topics, member } = await configured();
      const events = collectEvents(s().nats, 'audience_member_changed');
      const [daily, weekly] = newsletters.interests;
      expect((await post('subscribe', member, { merge_fields: { LNAME: 'Lovelace' } })).status).toBe(200);
      const response = await post('subscribe', member, {
        merge_fields: { FNAME: 'Ada', LNAME: '', COMPANY: 0, EMPTY_TEXT: '0', NOTHING: null, NO: false },
        interests: { [daily!.id]: true, [weekly!.id]: false },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual(
        memberBody(member.email, listId, {
          full_name: 'Ada Lovelace',
          interests: [
            { id: daily!.id, name: 'daily briefing', subscribed: true },
            { id: weekly!.id, name: 'weekly digest', subscribed: false },
            // Not in the configured category's catalog.
            { id: topics.interests[0]!.id, name: `Newsletter ${topics.interests[0]!.id}`, subscribed: false },
          ],
          merge_fields: [
            { key: 'FNAME', name: 'First Name', value: 'Ada' },
            // An empty value is dropped, so it never clears the stored one.
            { key: 'LNAME', name: 'Last Name', value: 'Lovelace' },
            { key: 'COMPANY', name: 'Company', value: '' },
          ],
          user_id: member.id,
        }),
      );
      const put = callsOf(key).filter((call) => call.method === 'PUT');
      expect(put.map((call) => call.path)).toEqual([
        `/3.0/lists/${listId}/members/${subscriberHash(member.email)}`,
        `/3.0/lists/${listId}/members/${subscriberHash(member.email)}`,
      ]);
      expect(put[1]!.body).toEqual({
        email_address: member.email,
        status_if_new: 'subscribed',
        status: 'subscribed',
        merge_fields: { FNAME: 'Ada' },
        interests: { [daily!.id]: true, [weekly!.id]: false },
      });
      expect(list.member(member.email)?.interests).toEqual({ [daily!.id]: true, [weekly!.id]: false });
      const event = await eventWhere(events, 'user_id', member.id);
      expect(event['payload']).toEqual({ user_id: member.id, action: 'subscribe', status: 'subscribed', tags: [] });
    });

    it("lists the interests in the configured category's order, then the others, whatever their IDs look like", async () => {
      const { newsletters, topics, member } = await configured();
      // Integer-like IDs come first in a parsed object, in numeric order: the reverse of the catalog's here.
      const [daily, weekly] = newsletters.interests;
      daily!.id = '9000000001';
      weekly!.id = '1000000002';
      topics.interests[0]!.id = '5';
      const response = await post('subscribe', member, { interests: { [daily!.id]: true } });
      expect(response.status, response.text).toBe(200);
      expect(response.body['interests']).toEqual([
        { id: '9000000001', name: 'daily briefing', subscribed: true },
        { id: '1000000002', name: 'weekly digest', subscribed: false },
        { id: '5', name: 'Newsletter 5', subscribed: false },
      ]);
    });

    it('acts for user_id only when the caller is a global admin or root; 404 user_not_found for an unknown one', async () => {
      const { tenant, list, member: other } = await configured();
      const asUser = await signIn(s(), tenant);
      const resourceAdmin = await signIn(s(), tenant, 'admin');
      const globalAdmin = await signIn(s(), tenant);
      await setGlobalRole(s(), globalAdmin.id, 'admin');
      const root = await signIn(s(), tenant, 'root');
      for (const caller of [asUser, resourceAdmin]) {
        const response = await post('subscribe', caller, { user_id: other.id });
        expect(response.body).toMatchObject({ email_address: caller.email, user_id: caller.id });
      }
      expect(list.member(other.email)).toBeUndefined();
      for (const caller of [globalAdmin, root]) {
        const response = await post('subscribe', caller, { user_id: String(other.id) });
        expect(response.body).toMatchObject({ email_address: other.email, user_id: other.id });
      }
      const unknown = await post('subscribe', root, { user_id: 99_999_999 });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual(envelope('user_not_found', 'User not found'));
      // An empty user_id is no user_id.
      expect((await post('subscribe', root, { user_id: '' })).body).toMatchObject({ email_address: root.email });
    });

    it('answers 406 incorrect_data for a body that is not a JSON object', async () => {
      const { member } = await configured();
      for (const request of [
        { form: { merge_fields: 'x' } },
        { raw: '{not json', headers: { 'content-type': 'application/json' } },
        { json: [1] },
        {},
      ]) {
        const response = await s().api('/integrations/audience/subscribe', {
          method: 'POST',
          ...request,
          headers: { ...member.headers, ...(request as { headers?: Record<string, string> }).headers },
        });
        expect(response.status, JSON.stringify(request)).toBe(406);
        expect(response.body).toEqual(envelope('incorrect_data'));
      }
    });

    it("answers the provider's error object with 200 and the user_id; only the user_id when the provider does not answer", async () => {
      const { key, list, member } = await configured();
      list.mergeField('CITY', 'City', { required: true });
      const refused = await post('subscribe', member, { merge_fields: { FNAME: 'Ada' } });
      expect(refused.status).toBe(200);
      expect(refused.body).toEqual({
        type: 'https://mailchimp.com/developer/marketing/docs/errors/',
        title: 'Invalid Resource',
        status: 400,
        detail: 'Your merge fields were invalid.',
        instance: expect.any(String),
        errors: [{ field: 'CITY', message: 'Please enter a value' }],
        user_id: member.id,
      });
      // A 429 that outlasts the call's attempts arrives the same way.
      p.audience.rateLimit(3, { match: (call) => keyOf(call) === key });
      const limited = await post('subscribe', member, { merge_fields: { CITY: 'Paris' } });
      expect(limited.body).toEqual({
        type: 'https://mailchimp.com/developer/marketing/docs/errors/',
        title: 'Too Many Requests',
        status: 429,
        detail: 'You have exceeded the limit of 10 simultaneous connections.',
        instance: expect.any(String),
        user_id: member.id,
      });
      // No answer within the deadline: the falsey adapter result.
      p.audience.fault({ count: 1, match: (call) => keyOf(call) === key, delayMs: 3000 });
      const silent = await post('subscribe', member, { merge_fields: { CITY: 'Paris' } });
      expect(silent.status).toBe(200);
      expect(silent.body).toEqual({ user_id: member.id });
    });

    it('answers 500 integration_error without a provider key', async () => {
      const response = await post('subscribe', await unconfigured(), {});
      expect(response.status).toBe(500);
      expect(response.body).toEqual(notConfigured);
    });
  });

  describe('GET /integrations/audience/subscriber-info', () => {
    it('answers the record after writing the member subscribed again (the documented resubscribe)', async () => {
      const { key, listId, list, member } = await configured();
      expect((await post('unsubscribe', member)).body).toMatchObject({ status: 'unsubscribed' });
      const response = await get('subscriber-info', member);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual(
        memberBody(member.email, listId, {
          interests: expect.any(Array),
          merge_fields: [
            { key: 'FNAME', name: 'First Name', value: '' },
            { key: 'LNAME', name: 'Last Name', value: '' },
            { key: 'COMPANY', name: 'Company', value: '' },
          ],
          user_id: member.id,
        }),
      );
      expect(list.member(member.email)?.status).toBe('subscribed');
      expect(
        callsOf(key)
          .filter((call) => call.method === 'PUT')
          .at(-1)!.body,
      ).toEqual({
        email_address: member.email,
        status_if_new: 'subscribed',
        status: 'subscribed',
      });
    });

    it('reads user_id from the query for root; ignores it for a member; a lasting 429 arrives as the error object; 500 without a key', async () => {
      const { tenant, key, member: other, list } = await configured();
      const root = await signIn(s(), tenant, 'root');
      expect((await get('subscriber-info', root, `user_id=${other.id}`)).body).toMatchObject({
        email_address: other.email,
        user_id: other.id,
      });
      const plain = await signIn(s(), tenant);
      expect((await get('subscriber-info', plain, `user_id=${root.id}`)).body).toMatchObject({ email_address: plain.email });
      expect(list.member(root.email)).toBeUndefined();
      p.audience.rateLimit(3, { match: (call) => keyOf(call) === key });
      expect((await get('subscriber-info', plain)).body).toMatchObject({ status: 429, title: 'Too Many Requests', user_id: plain.id });
      const missing = await get('subscriber-info', await unconfigured());
      expect(missing.status).toBe(500);
      expect(missing.body).toEqual(notConfigured);
    });
  });

  describe('POST /integrations/audience/unsubscribe', () => {
    it('writes the member unsubscribed, with or without a body; root may name another user', async () => {
      const { tenant, listId, list, member } = await configured();
      await post('subscribe', member, {});
      const response = await post('unsubscribe', member);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual(
        memberBody(member.email, listId, {
          status: 'unsubscribed',
          interests: expect.any(Array),
          merge_fields: expect.any(Array),
          user_id: member.id,
        }),
      );
      expect(list.member(member.email)?.status).toBe('unsubscribed');
      const root = await signIn(s(), tenant, 'root');
      const other = await signIn(s(), tenant);
      expect((await post('unsubscribe', root, { user_id: other.id })).body).toMatchObject({
        email_address: other.email,
        status: 'unsubscribed',
      });
      expect(list.member(root.email)).toBeUndefined();
    });

    it('answers 406 for a form body, the error object for a lasting 429, 500 integration_error without a key', async () => {
      const { key, member } = await configured();
      p.audience.rateLimit(3, { match: (call) => keyOf(call) === key });
      expect((await post('unsubscribe', member)).body).toMatchObject({ status: 429, title: 'Too Many Requests', user_id: member.id });
      const form = await s().api('/integrations/audience/unsubscribe', { method: 'POST', headers: member.headers, form: { user_id: '1' } });
      expect(form.status).toBe(406);
      expect(form.body).toEqual(envelope('incorrect_data'));
      const missing = await post('unsubscribe', await unconfigured());
      expect(missing.status).toBe(500);
      expect(missing.body).toEqual(notConfigured);
    });
  });

  describe('POST /integrations/audience/add-tags', () => {
    it('adds active tags to the current member only', async () => {
      const { tenant, key, listId, list, member } = await configured();
      const root = await signIn(s(), tenant, 'root');
      await post('subscribe', root, {});
      const events = collectEvents(s().nats, 'audience_member_changed');
      const response = await post('add-tags', root, { insert_tags: ['vip', ' early ', 'vip', 3], user_id: member.id });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({ result: true });
      expect(list.member(root.email)?.tags.map((tag) => tag.name)).toEqual(['vip', 'early']);
      expect(callsOf(key).at(-1)).toMatchObject({
        method: 'POST',
        path: `/3.0/lists/${listId}/members/${subscriberHash(root.email)}/tags`,
        body: {
          tags: [
            { name: 'vip', status: 'active' },
            { name: 'early', status: 'active' },
          ],
        },
      });
      expect((await eventWhere(events, 'action', 'add_tags'))['payload']).toEqual({
        user_id: root.id,
        action: 'add_tags',
        status: null,
        tags: ['vip', 'early'],
      });
    });

    it("answers result false with the provider's error when the member is not on the list", async () => {
      const { member } = await configured();
      const response = await post('add-tags', member, { insert_tags: 'vip' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        result: false,
        type: 'https://mailchimp.com/developer/marketing/docs/errors/',
        title: 'Resource Not Found',
        status: 404,
        detail: 'The requested resource could not be found.',
        instance: expect.any(String),
      });
    });

    it('answers 409 without tag names, 406 for a body that is not JSON, the error for a lasting 429, 500 without a key', async () => {
      const { key, member } = await configured();
      await post('subscribe', member, {});
      p.audience.rateLimit(3, { match: (call) => keyOf(call) === key });
      expect((await post('add-tags', member, { insert_tags: ['vip'] })).body).toMatchObject({ result: false, status: 429 });
      for (const body of [{}, { insert_tags: [] }, { insert_tags: ['  '] }]) {
        const response = await post('add-tags', member, body);
        expect(response.status).toBe(409);
        expect(response.body).toEqual({
          error: true,
          error_fields: { insert_tags: 'insert_tags must be a non-empty list of tag names' },
          req_guid: anyRequestId,
        });
      }
      const form = await s().api('/integrations/audience/add-tags', {
        method: 'POST',
        headers: member.headers,
        form: { insert_tags: 'x' },
      });
      expect(form.status).toBe(406);
      const missing = await post('add-tags', await unconfigured(), { insert_tags: ['vip'] });
      expect(missing.status).toBe(500);
      expect(missing.body).toEqual(notConfigured);
    });
  });

  describe('GET /integrations/audience/member-interests', () => {
    it("lists the configured category's interests with the member's flags (all false before it subscribes)", async () => {
      const { newsletters, member } = await configured();
      const [daily, weekly] = newsletters.interests;
      const before = await get('member-interests', member);
      expect(before.status, before.text).toBe(200);
      expect(before.body).toEqual({
        items: [
          { id: daily!.id, name: 'daily briefing', subscribed: false },
          { id: weekly!.id, name: 'weekly digest', subscribed: false },
        ],
      });
      await post('subscribe', member, { interests: { [weekly!.id]: true } });
      expect((await get('member-interests', member)).body).toEqual({
        items: [
          { id: daily!.id, name: 'daily briefing', subscribed: false },
          { id: weekly!.id, name: 'weekly digest', subscribed: true },
        ],
      });
    });

    it('answers [] when the provider refuses, 500 integration_error without a key', async () => {
      const { key, member } = await configured();
      p.audience.rateLimit(3, { match: (call) => keyOf(call) === key });
      expect((await get('member-interests', member)).body).toEqual({ items: [] });
      const missing = await get('member-interests', await unconfigured());
      expect(missing.status).toBe(500);
      expect(missing.body).toEqual(notConfigured);
    });
  });

  describe('GET /integrations/audience/sync-choices', () => {
    it("lists the list's merge fields, the keys subscribe's merge_fields takes", async () => {
      const { list, member } = await configured();
      list.mergeField('PHONE', 'Phone', { type: 'phone', required: true });
      const response = await get('sync-choices', member);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({
        items: [
          { key: 'FNAME', name: 'First Name', type: 'text', required: false },
          { key: 'LNAME', name: 'Last Name', type: 'text', required: false },
          { key: 'COMPANY', name: 'Company', type: 'text', required: false },
          { key: 'PHONE', name: 'Phone', type: 'phone', required: true },
        ],
      });
    });

    it('answers [] when the provider refuses, 500 integration_error without a key', async () => {
      const { key, member } = await configured();
      p.audience.rateLimit(3, { match: (call) => keyOf(call) === key });
      expect((await get('sync-choices', member)).body).toEqual({ items: [] });
      const missing = await get('sync-choices', await unconfigured());
      expect(missing.status).toBe(500);
      expect(missing.body).toEqual(notConfigured);
    });
  });

  it("keeps resources apart: each reaches its own list with its own key; another resource's configuration is never used", async () => {
    const a = await configured();
    const b = await configured();
    await post('subscribe', b.member, {});
    expect(b.list.member(b.member.email)?.status).toBe('subscribed');
    expect(a.list.member(b.member.email)).toBeUndefined();
    expect(callsOf(a.key).some((call) => call.path.includes(b.listId))).toBe(false);
    expect(callsOf(b.key).every((call) => call.path.startsWith(`/3.0/lists/${b.listId}/`))).toBe(true);
    // A member of a third resource with no configuration of its own gets none of theirs.
    const missing = await post('subscribe', await unconfigured(), {});
    expect(missing.status).toBe(500);
  });
});
