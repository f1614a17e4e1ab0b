import { hexId, type FakeCall, type FakeListmgrAccount, type Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { envelope, newTenant, setGlobalRole, signIn, useProviders, type SignedIn } from './provider-support.js';
import { anyRequestId, collectEvents, eventWhere } from './support.js';

type Json = Record<string, unknown>;

/**
 * The `listmgr` provider operations (document 2 H; OPERATIONS.md 95-97, 162; docs/adr/0160-0162)
 * through the gateway and integrations, against the local fake of the provider's API v3.3
 * (tests/stack fake-providers), with OAuth tokens stored sealed by the operator call.
 */
describe('listmgr provider', () => {
  const p = useProviders();
  const s = () => p.s;
  const tokenOf = (call: FakeCall) => (call.headers.authorization ?? '').replace(/^Bearer /, '');

  interface Configured {
    tenant: Tenant;
    account: FakeListmgrAccount;
    /** Provider list IDs: shown (alerts is confirmed opt-in), required, allowed, and one with no flag. */
    ids: { alerts: string; news: string; offers: string; partners: string; internal: string; unselectable: string };
    member: SignedIn;
    /** Every call made with this resource's tokens (refreshed ones included). */
    calls(): FakeCall[];
  }

  async function configured(customFields = [{ key: 'Phone', source: 'phone' }]): Promise<Configured> {
    const tenant = await newTenant(s());
    const access = hexId(24);
    const account = p.listmgr.account(access, hexId(24));
    const tokens = new Set([access]);
    const ids = {
      alerts: hexId(32),
      news: hexId(32),
      offers: hexId(32),
      partners: hexId(32),
      internal: hexId(32),
      unselectable: hexId(32),
    };
    for (const id of Object.values(ids)) account.list(id, { confirmedOptIn: id === ids.alerts });
    const operator = p.operator();
    const resourceId = tenant.resourceId;
    await operator.providerConfig.setProviderSecret({
      resourceId,
      provider: 'listmgr',
      secret: JSON.stringify({ access_token: access, refresh_token: account.refreshToken }),
    });
    await operator.providerConfig.setListmgrSettings({ resourceId, clientId: 'client-1', customFields, consentToTrack: '' });
    const list = (
      listId: string,
      listName: string,
      flags: Partial<Record<'showList' | 'requireList' | 'allowedList' | 'confirmedOpt', boolean>>,
    ) =>
      operator.listmgr.upsertList({
        id: 0,
        resourceId,
        listId,
        listName,
        clientName: 'Daily News',
        unsubscribeSettings: 'AllClientLists',
        confirmedOpt: false,
        showList: false,
        requireList: false,
        allowedList: false,
        ...flags,
      });
    await list(ids.news, 'Newsletter', { showList: true });
    await list(ids.offers, 'Offers', { showList: true });
    await list(ids.alerts, 'Alerts', { showList: true, confirmedOpt: true });
    await list(ids.partners, 'Partner news', { requireList: true });
    await list(ids.internal, 'Zeta internal', { allowedList: true });
    await list(ids.unselectable, 'Unselectable', {});
    const member = await signIn(s(), tenant, 'user', { firstName: 'Ada', lastName: 'Lovelace' });
    return {
      tenant,
      account,
      ids,
      member,
      calls: () => {
        tokens.add(account.accessToken);
        return p.listmgr.calls.filter((call) => tokens.has(tokenOf(call)));
      },
    };
  }

  /** A list's state row as the member sees it. */
  const row = (listId: string, listName: string, state: string, extra: Json = {}) => ({
    list_id: listId,
    list_name: listName,
    confirmed_opt: listName === 'Alerts',
    unsubscribe_settings: 'AllClientLists',
    subscribed: state === 'Active',
    state,
    updating: false,
    ...extra,
  });
  const seed = (c: Configured, listId: string, email: string, State: string) =>
    c.account.list(listId).subscribers.set(email.toLowerCase(), {
      EmailAddress: email,
      Name: '',
      Date: '2024-01-01 00:00:00',
      ListJoinedDate: '2024-01-01 00:00:00',
      State,
      CustomFields: [],
      ConsentToTrack: 'No',
      restarts: 0,
    });
  const interests = (member: SignedIn, query?: string) => s().api('/integrations/listmgr/interests', { headers: member.headers, query });
  const change = (action: 'subscribe' | 'unsubscribe', member: SignedIn, json: unknown) =>
    s().api(`/integrations/listmgr/${action}`, { method: 'POST', headers: member.headers, json });
  const unconfigured = async () => signIn(s(), await newTenant(s()));
  const notConfigured = envelope('integration_error', 'The listmgr integration is not configured for this resource');
  const cacheOf = (c: Configured, email: string) =>
    s()
      .db('integrations')
      .collection('listmgr_state_cache')
      .findOne({ _id: `${c.tenant.resourceId}:${email}` as never });

  describe('GET /integrations/listmgr/get-lists', () => {
    it('answers the stored lists with show_list, by list_name, to a guest of the resource', async () => {
      const c = await configured();
      const response = await s().api('/integrations/listmgr/get-lists', { headers: { resource: c.tenant.publicKey } });
      expect(response.status, response.text).toBe(200);
      const record = (listId: string, listName: string) => ({
        id: expect.any(Number),
        list_id: listId,
        list_name: listName,
        client_name: 'Daily News',
        confirmed_opt: listName === 'Alerts',
        unsubscribe_settings: 'AllClientLists',
      });
      expect(response.body).toEqual({
        items: [record(c.ids.alerts, 'Alerts'), record(c.ids.news, 'Newsletter'), record(c.ids.offers, 'Offers')],
      });
      expect(c.calls()).toEqual([]);
    });

    it('answers 500 integration_error without provider OAuth configuration, 404 resource_not_exists for a bad key', async () => {
      const tenant = await newTenant(s());
      const missing = await s().api('/integrations/listmgr/get-lists', { headers: { resource: tenant.publicKey } });
      expect(missing.status).toBe(500);
      expect(missing.body).toEqual(notConfigured);
      const bad = await s().api('/integrations/listmgr/get-lists', { headers: { resource: 'no-such-resource' } });
      expect(bad.status).toBe(404);
      expect(bad.body).toEqual(envelope('resource_not_exists'));
    });
  });

  describe('GET /integrations/listmgr/interests', () => {
    it('answers the provider state of each shown list and writes the email-key cache for 600 seconds, bypassing it', async () => {
      const c = await configured();
      const { member, ids } = c;
      seed(c, ids.news, member.email, 'Active');
      seed(c, ids.offers, member.email, 'Unsubscribed');
      // A stale cache entry is not what the read answers.
      await s()
        .db('integrations')
        .collection('listmgr_state_cache')
        .insertOne({
          _id: `${c.tenant.resourceId}:${member.email}` as never,
          resource_id: c.tenant.resourceId,
          states: [{ list_id: ids.news, state: 'Deleted' }],
          expires_at: new Date(Date.now() + 600_000),
        });
      const response = await interests(member);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({
        lists: [row(ids.alerts, 'Alerts', ''), row(ids.news, 'Newsletter', 'Active'), row(ids.offers, 'Offers', 'Unsubscribed')],
      });
      expect(c.calls().map((call) => `${call.method} ${call.path}?${call.query.toString()}`)).toEqual(
        [ids.alerts, ids.news, ids.offers].map(
          (id) => `GET /api/v3.3/subscribers/${id}.json?email=${encodeURIComponent(member.email)}&includetrackingpreference=true`,
        ),
      );
      const cached = await cacheOf(c, member.email);
      expect(cached?.['states']).toEqual([
        { list_id: ids.alerts, state: '' },
        { list_id: ids.news, state: 'Active' },
        { list_id: ids.offers, state: 'Unsubscribed' },
      ]);
      const ttl = (cached?.['expires_at'] as Date).getTime() - Date.now();
      expect(ttl).toBeGreaterThan(590_000);
      expect(ttl).toBeLessThanOrEqual(600_000);
    });

    it('acts for user_id by relationship role, else by global role; shows required and allowed lists then', async () => {
      const c = await configured();
      const { tenant, ids, member: target } = c;
      const elevated = [
        row(ids.alerts, 'Alerts', ''),
        row(ids.news, 'Newsletter', ''),
        row(ids.offers, 'Offers', ''),
        row(ids.partners, 'Partner news', ''),
        row(ids.internal, 'Zeta internal', ''),
      ];
      const emailsAsked = () => new Set(c.calls().map((call) => call.query.get('email')));
      const root = await signIn(s(), tenant, 'root');
      const resourceAdmin = await signIn(s(), tenant, 'admin');
      const partner = await signIn(s(), tenant, 'partner');
      for (const caller of [root, resourceAdmin, partner]) {
        p.listmgr.calls.length = 0;
        const response = await interests(caller, `user_id=${target.id}`);
        expect(response.body).toEqual({ lists: elevated });
        expect(emailsAsked()).toEqual(new Set([target.email]));
      }
      // A global admin whose relationship role is user: the relationship decides.
      const globalAdmin = await signIn(s(), tenant);
      await setGlobalRole(s(), globalAdmin.id, 'admin');
      p.listmgr.calls.length = 0;
      expect(((await interests(globalAdmin, `user_id=${target.id}`)).body['lists'] as Json[]).length).toBe(3);
      expect(emailsAsked()).toEqual(new Set([globalAdmin.email]));
      // Without a relationship, the global role decides.
      await s()
        .db('identity')
        .collection('relationships')
        .deleteOne({ _id: `${tenant.resourceId}:${globalAdmin.id}` as never });
      expect((await interests(globalAdmin, `user_id=${target.id}`)).body).toEqual({ lists: elevated });
      // A plain member's user_id is ignored.
      const plain = await signIn(s(), tenant);
      p.listmgr.calls.length = 0;
      expect(((await interests(plain, `user_id=${target.id}`)).body['lists'] as Json[]).length).toBe(3);
      expect(emailsAsked()).toEqual(new Set([plain.email]));
      // The named user must exist; only root's reach crosses resources: to anyone else a member
      // of another resource is an unknown user (docs/adr/0239).
      const unknown = await interests(root, 'user_id=99999999');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual(envelope('user_not_found', 'User not found'));
      const stranger = await signIn(s(), await newTenant(s()));
      expect((await interests(root, `user_id=${stranger.id}`)).status).toBe(200);
      for (const caller of [resourceAdmin, partner, globalAdmin]) {
        const out = await interests(caller, `user_id=${stranger.id}`);
        expect([out.status, out.body]).toEqual([404, envelope('user_not_found', 'User not found')]);
      }
    });

    it('refreshes an expired access token once, stores the new tokens sealed, and answers', async () => {
      const c = await configured();
      const before = await s()
        .db('integrations')
        .collection('provider_configs')
        .findOne({ _id: `${c.tenant.resourceId}:listmgr` as never });
      const refreshToken = c.account.refreshToken;
      c.account.expire();
      const response = await interests(c.member);
      expect(response.status, response.text).toBe(200);
      expect((response.body['lists'] as Json[]).length).toBe(3);
      const refreshes = () =>
        p.listmgr.calls.filter((call) => call.path === '/oauth/token' && (call.body as Json)['refresh_token'] === refreshToken);
      expect(refreshes()).toHaveLength(1);
      expect(refreshes()[0]!.body).toEqual({ grant_type: 'refresh_token', refresh_token: refreshToken });
      const after = await s()
        .db('integrations')
        .collection('provider_configs')
        .findOne({ _id: `${c.tenant.resourceId}:listmgr` as never });
      expect(after?.['secret']).not.toEqual(before?.['secret']);
      expect(after?.['secret_last4']).toBe(c.account.accessToken.slice(-4));
      expect(JSON.stringify(after)).not.toContain(c.account.accessToken);
      // The next call uses the stored new token at once: no second refresh.
      expect((await interests(c.member)).status).toBe(200);
      expect(refreshes()).toHaveLength(1);
      expect(c.calls().at(-1)?.headers.authorization).toBe(`Bearer ${c.account.accessToken}`);
    });

    it('leaves a state blank after a provider error, waits out a 429 as X-RateLimit-Reset asks; 500 without configuration', async () => {
      const c = await configured();
      // An access token the provider does not know.
      c.account.accessToken = hexId(24);
      expect((await interests(c.member)).body).toEqual({
        lists: [row(c.ids.alerts, 'Alerts', ''), row(c.ids.news, 'Newsletter', ''), row(c.ids.offers, 'Offers', '')],
      });
      const d = await configured();
      seed(d, d.ids.news, d.member.email, 'Active');
      p.listmgr.rateLimit(1, { retryAfterSeconds: 1, match: (call) => d.calls().includes(call) });
      const started = Date.now();
      const limited = await interests(d.member);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect((limited.body['lists'] as Json[])[1]).toEqual(row(d.ids.news, 'Newsletter', 'Active'));
      const missing = await interests(await unconfigured());
      expect(missing.status).toBe(500);
      expect(missing.body).toEqual(notConfigured);
    });
  });

  describe('POST /integrations/listmgr/subscribe', () => {
    it('subscribes each selectable list asked for, in order and duplicates repeated, then rereads every state', async () => {
      const c = await configured([
        { key: 'Phone', source: 'phone' },
        { key: 'Plan', source: 'extra.plan' },
        { key: 'Email', source: 'email' },
      ]);
      const { ids, member } = c;
      seed(c, ids.offers, member.email, 'Unsubscribed');
      const events = collectEvents(s().nats, 'listmgr_subscriptions_changed');
      const response = await change('subscribe', member, {
        lists: [ids.offers, ids.partners, ids.unselectable, 'no-such-list', ids.news, ids.news, ids.alerts],
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({
        lists: [
          // New to a confirmed-opt-in list: Unconfirmed until the member confirms.
          row(ids.alerts, 'Alerts', 'Unconfirmed'),
          row(ids.news, 'Newsletter', 'Active'),
          row(ids.offers, 'Offers', 'Active'),
          // Not shown to the member, but changed here: reported too.
          row(ids.partners, 'Partner news', 'Active'),
        ],
      });
      const posts = c.calls().filter((call) => call.method === 'POST');
      expect(posts.map((call) => call.path)).toEqual(
        [ids.offers, ids.partners, ids.news, ids.news, ids.alerts].map((id) => `/api/v3.3/subscribers/${id}.json`),
      );
      expect(posts[0]!.body).toEqual({
        EmailAddress: member.email,
        Name: 'Ada Lovelace',
        CustomFields: [
          { Key: 'Phone', Value: '' },
          { Key: 'Plan', Value: '' },
          { Key: 'Email', Value: member.email },
        ],
        Resubscribe: true,
        RestartSubscriptionBasedAutoresponders: true,
        ConsentToTrack: 'Unchanged',
      });
      expect(c.account.subscriber(ids.offers, member.email)?.restarts).toBe(1);
      expect(c.account.subscriber(ids.unselectable, member.email)).toBeUndefined();
      // The forced reread refreshed the cache.
      expect((await cacheOf(c, member.email))?.['states']).toHaveLength(4);
      const event = await eventWhere(events, 'user_id', member.id);
      expect(event['payload']).toEqual({
        user_id: member.id,
        action: 'subscribe',
        lists: [
          { list_id: ids.alerts, state: 'Unconfirmed', error: null },
          { list_id: ids.news, state: 'Active', error: null },
          { list_id: ids.offers, state: 'Active', error: null },
          { list_id: ids.partners, state: 'Active', error: null },
        ],
      });
    });

    it("reports a list's failure on its row and goes on with the others", async () => {
      const c = await configured();
      const { ids, member } = c;
      p.listmgr.fault({
        count: 1,
        match: (call) => call.path === `/api/v3.3/subscribers/${ids.news}.json` && call.method === 'POST',
        answer: () => ({ status: 400, body: { Code: 206, Message: 'Is Unsubscribed' } }),
      });
      p.listmgr.rateLimit(3, {
        retryAfterSeconds: 0,
        match: (call) => call.path === `/api/v3.3/subscribers/${ids.alerts}.json` && call.method === 'POST',
      });
      const response = await change('subscribe', member, { lists: [ids.news, ids.offers, ids.alerts] });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({
        lists: [
          row(ids.alerts, 'Alerts', '', {
            error: 'listmgr_provider_error',
            error_description: 'Rate limit exceeded (code 429)',
            req_guid: anyRequestId,
          }),
          row(ids.news, 'Newsletter', '', {
            error: 'listmgr_provider_error',
            error_description: 'Is Unsubscribed (code 206)',
            req_guid: anyRequestId,
          }),
          row(ids.offers, 'Offers', 'Active'),
        ],
      });
      // No answer within the deadline.
      p.listmgr.fault({
        count: 1,
        delayMs: 3000,
        match: (call) => call.path === `/api/v3.3/subscribers/${ids.news}.json` && call.method === 'POST',
      });
      const silent = await change('subscribe', member, { lists: [ids.news] });
      expect((silent.body['lists'] as Json[])[1]).toEqual(
        row(ids.news, 'Newsletter', '', {
          error: 'listmgr_provider_unavailable',
          error_description: 'The list provider did not answer',
          req_guid: anyRequestId,
        }),
      );
    });

    it('fails a list whose custom field value is over 250 characters, without calling the provider', async () => {
      const c = await configured([{ key: 'Company', source: 'company' }]);
      const { ids, member } = c;
      await s()
        .db('identity')
        .collection('users')
        .updateOne({ _id: member.id as never }, { $set: { company: 'x'.repeat(251) } });
      const response = await change('subscribe', member, { lists: [ids.news] });
      expect((response.body['lists'] as Json[])[1]).toEqual(
        row(ids.news, 'Newsletter', '', {
          error: 'listmgr_value_too_long',
          error_description: 'The value of custom field Company is longer than 250 characters',
          req_guid: anyRequestId,
        }),
      );
      expect(c.calls().filter((call) => call.method === 'POST')).toEqual([]);
      await s()
        .db('identity')
        .collection('users')
        .updateOne({ _id: member.id as never }, { $set: { company: 'x'.repeat(250) } });
      expect((await change('subscribe', member, { lists: [ids.news] })).body['lists']).toContainEqual(
        row(ids.news, 'Newsletter', 'Active'),
      );
    });

    it("acts for an eligible caller's user_id and answers its lists", async () => {
      const c = await configured();
      const admin = await signIn(s(), c.tenant, 'admin');
      const response = await change('subscribe', admin, { lists: [c.ids.internal], user_id: c.member.id });
      expect(response.status, response.text).toBe(200);
      expect((response.body['lists'] as Json[]).length).toBe(5);
      expect(response.body['lists']).toContainEqual(row(c.ids.internal, 'Zeta internal', 'Active'));
      expect(c.account.subscriber(c.ids.internal, c.member.email)?.State).toBe('Active');
      expect(c.account.subscriber(c.ids.internal, admin.email)).toBeUndefined();
      const unknown = await change('subscribe', admin, { lists: [c.ids.news], user_id: 99_999_999 });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual(envelope('user_not_found', 'User not found'));
    });

    it('answers 406 for a body that is not a JSON object, 409 without lists, 500 without configuration', async () => {
      const c = await configured();
      const form = await s().api('/integrations/listmgr/subscribe', {
        method: 'POST',
        headers: c.member.headers,
        form: { lists: c.ids.news },
      });
      expect(form.status).toBe(406);
      expect(form.body).toEqual(envelope('incorrect_data'));
      for (const body of [{}, { lists: [] }, { lists: c.ids.news }, { lists: [null, ''] }]) {
        const response = await change('subscribe', c.member, body);
        expect(response.status, JSON.stringify(body)).toBe(409);
        expect(response.body).toEqual({
          error: true,
          error_fields: { lists: 'lists must be a non-empty array of list IDs' },
          req_guid: anyRequestId,
        });
      }
      const many = await change('subscribe', c.member, { lists: Array.from({ length: 51 }, () => c.ids.news) });
      expect(many.status).toBe(409);
      expect(many.body).toEqual({ error: true, error_fields: { lists: 'lists may hold at most 50 list IDs' }, req_guid: anyRequestId });
      expect(c.calls().filter((call) => call.method === 'POST')).toEqual([]);
      const missing = await change('subscribe', await unconfigured(), { lists: ['x'] });
      expect(missing.status).toBe(500);
      expect(missing.body).toEqual(notConfigured);
    });
  });

  describe('POST /integrations/listmgr/unsubscribe', () => {
    it('unsubscribes each selectable list asked for, then rereads; a list the member is not on reports the provider error', async () => {
      const c = await configured();
      const { ids, member } = c;
      seed(c, ids.news, member.email, 'Active');
      const response = await change('unsubscribe', member, { lists: [ids.news, ids.offers, ids.unselectable] });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({
        lists: [
          row(ids.alerts, 'Alerts', ''),
          row(ids.news, 'Newsletter', 'Unsubscribed'),
          row(ids.offers, 'Offers', '', {
            error: 'listmgr_provider_error',
            error_description: 'Subscriber not in list or has already been removed. (code 203)',
            req_guid: anyRequestId,
          }),
        ],
      });
      expect(c.calls().filter((call) => call.method === 'POST')).toMatchObject([
        { path: `/api/v3.3/subscribers/${ids.news}/unsubscribe.json`, body: { EmailAddress: member.email } },
        { path: `/api/v3.3/subscribers/${ids.offers}/unsubscribe.json`, body: { EmailAddress: member.email } },
      ]);
    });

    it('reports a lasting 429 on the list; answers 406, 409 and 500 as subscribe does', async () => {
      const c = await configured();
      seed(c, c.ids.news, c.member.email, 'Active');
      p.listmgr.rateLimit(3, {
        retryAfterSeconds: 0,
        match: (call) => call.path === `/api/v3.3/subscribers/${c.ids.news}/unsubscribe.json`,
      });
      const limited = await change('unsubscribe', c.member, { lists: [c.ids.news] });
      expect((limited.body['lists'] as Json[])[1]).toEqual(
        row(c.ids.news, 'Newsletter', 'Active', {
          error: 'listmgr_provider_error',
          error_description: 'Rate limit exceeded (code 429)',
          req_guid: anyRequestId,
        }),
      );
      const form = await s().api('/integrations/listmgr/unsubscribe', { method: 'POST', headers: c.member.headers, form: { lists: 'x' } });
      expect(form.status).toBe(406);
      const empty = await change('unsubscribe', c.member, { lists: [] });
      expect(empty.status).toBe(409);
      const missing = await change('unsubscribe', await unconfigured(), { lists: ['x'] });
      expect(missing.status).toBe(500);
      expect(missing.body).toEqual(notConfigured);
    });
  });

  it("keeps resources apart: another resource's lists are neither listed nor selectable, its tokens never used", async () => {
    const a = await configured();
    const b = await configured();
    const listed = await s().api('/integrations/listmgr/get-lists', { headers: { resource: b.tenant.publicKey } });
    expect((listed.body['items'] as Json[]).map((list) => list['list_id'])).toEqual([b.ids.alerts, b.ids.news, b.ids.offers]);
    const response = await change('subscribe', b.member, { lists: [a.ids.news] });
    expect(response.body['lists']).toEqual([
      row(b.ids.alerts, 'Alerts', ''),
      row(b.ids.news, 'Newsletter', ''),
      row(b.ids.offers, 'Offers', ''),
    ]);
    expect(a.calls()).toEqual([]);
    expect(a.account.subscriber(a.ids.news, b.member.email)).toBeUndefined();
  });
});
