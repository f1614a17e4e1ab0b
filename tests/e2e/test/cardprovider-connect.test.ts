import { FAKE_PROVIDER_KEY } from '@masthead/local-infra';
import {
  createMember,
  createTenant,
  FAKE_CONNECT_REDIRECT,
  startFakeConnectOAuth,
  type FakeConnectOAuth,
  type Tenant,
} from '@masthead/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardProviderTenant, connections } from './card-provider-support.js';
import { anyIsoDate, anyRequestId, useStack, type StackHandle } from './support.js';

type Json = Record<string, unknown>;

const CLIENT_ID = 'ca_mastheadtestplatform';
const PATH = '/admin/integrations/cardprovider/connect';

/**
 * The three integration-admin operations on the card-provider connection (document 1 D,
 * OPERATIONS.md 104–106, docs/adr/0126) through the gateway, billing, FerretDB and a stateful
 * fake of the provider's connect OAuth on loopback.
 */
describe('card-provider connect (integration admin)', () => {
  const env: Record<string, string> = {};
  let oauth: FakeConnectOAuth;
  beforeAll(async () => {
    oauth = await startFakeConnectOAuth([{ clientId: CLIENT_ID, secretKey: FAKE_PROVIDER_KEY }]);
    env['CARDPROVIDER_CONNECT_BASE'] = oauth.url;
  });
  afterAll(async () => oauth?.stop());
  const s: StackHandle = useStack({ env });

  const signIn = async (tenant: Tenant, role = 'user') => {
    const member = await createMember(s.stack, tenant, { role });
    const response = await s.api('/authorization', {
      headers: { resource: tenant.publicKey },
      json: { email: member.email, password: member.password },
    });
    expect(response.status, response.text).toBe(200);
    return { member, headers: { resource: tenant.publicKey, token: response.body['token'] as string } };
  };
  /** A test-mode resource with its key and client ID stored as the operator would, and an admin of `role`. */
  async function connectable(role = 'admin') {
    const tenant = await cardProviderTenant(s);
    const client = connections(s);
    try {
      await client.setClientId({ resourceId: tenant.resourceId, mode: 'test', clientId: CLIENT_ID });
    } finally {
      client.close();
    }
    return { tenant, ...(await signIn(tenant, role)) };
  }
  const guidance = async (headers: Record<string, string>) => {
    const response = await s.api(PATH, { headers });
    expect(response.status, response.text).toBe(200);
    return response.body['cardprovider_connect'] as Json;
  };
  /** What the admin's browser does: opens the authorize URL; the provider redirects with a code. */
  const authorize = async (authorizeUrl: string) => {
    const response = await fetch(authorizeUrl, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(FAKE_CONNECT_REDIRECT);
    return { code: location.searchParams.get('code')!, state: location.searchParams.get('state')! };
  };
  const exchange = (headers: Record<string, string>, body: Json) => s.api(PATH, { method: 'POST', headers, json: body });
  const clear = (headers: Record<string, string>) => s.api(PATH, { method: 'DELETE', headers });
  const callsFor = (path: string) => oauth.calls.filter((call) => call.path === path);
  /** Every secret the fake handed out must stay out of what the admin sees. */
  const expectNoSecret = (text: string) => {
    expect(text).not.toMatch(/sk_(test|live)_|rt_[0-9a-f]{6}/);
    expect(text).not.toContain(FAKE_PROVIDER_KEY);
  };

  async function connectAccount(headers: Record<string, string>) {
    const g = await guidance(headers);
    const { code, state } = await authorize(g['authorize_url'] as string);
    const response = await exchange(headers, { code, state });
    expect(response.status, response.text).toBe(200);
    return { response, code, state };
  }

  describe(`GET ${PATH}`, () => {
    it('answers the authorize URL with a fresh state bound to the admin, and no connected account yet', async () => {
      const { headers, tenant } = await connectable();
      const response = await s.api(PATH, { headers });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        cardprovider_connect: {
          pay_system: 'cardprovider',
          mode: 'test',
          client_id: CLIENT_ID,
          authorize_url: expect.any(String),
          state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          state_expires_at: anyIsoDate,
          connected_account: null,
        },
      });
      const body = response.body['cardprovider_connect'] as Json;
      const url = new URL(body['authorize_url'] as string);
      expect(`${url.origin}${url.pathname}`).toBe(`${oauth.url}/oauth/authorize`);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        response_type: 'code',
        client_id: CLIENT_ID,
        scope: 'read_write',
        state: body['state'],
      });
      const expires = Date.parse(body['state_expires_at'] as string) - Date.now();
      expect(expires).toBeGreaterThan(14 * 60_000);
      expect(expires).toBeLessThanOrEqual(15 * 60_000);
      // Stored only as a hash.
      const stored = await s.db('billing').collection('cardprovider_connect_states').find({ resource_id: tenant.resourceId }).toArray();
      expect(stored).toHaveLength(1);
      expect(JSON.stringify(stored)).not.toContain(body['state'] as string);
      // Each read issues another state.
      expect((await guidance(headers))['state']).not.toBe(body['state']);
      expectNoSecret(response.text);
    });

    it.each(['admin', 'partner', 'root'])('lets %s in (partner inherits admin, root bypasses)', async (role) => {
      const { headers } = await connectable(role);
      expect((await guidance(headers))['client_id']).toBe(CLIENT_ID);
    });

    it('refuses an ordinary user and a service_account: 403 access; a guest: 401 auth_failed', async () => {
      const { tenant } = await connectable();
      // A service-account user holding a session token: its global role, set where identity keeps it.
      const serviceUser = await signIn(tenant);
      await s
        .db('identity')
        .collection('users')
        .updateOne({ _id: serviceUser.member.id as never }, { $set: { role: 'service_account' } });
      for (const [role, { headers }] of [
        ['user', await signIn(tenant)],
        ['service_account', serviceUser],
      ] as const) {
        for (const method of ['GET', 'POST', 'DELETE']) {
          const response = await s.api(PATH, { method, headers, json: method === 'POST' ? { code: 'ac_x', state: 'x' } : undefined });
          expect(response.status, `${role} ${method}`).toBe(403);
          expect(response.body).toEqual({ error: 'access', error_description: 'Access denied', req_guid: anyRequestId });
        }
      }
      // A service-api-key is not read on admin routes (ADR 0020): the caller is a guest.
      const { key } = await s.stack.operator.serviceAccounts.createServiceAccount({
        resourceId: tenant.resourceId,
        title: 'Back end',
        fullAccess: true,
        grants: [],
      });
      const keyed = await s.api(PATH, { headers: { resource: tenant.publicKey, 'service-api-key': key } });
      expect(keyed.status).toBe(401);
      const guest = await s.api(PATH, { headers: { resource: tenant.publicKey } });
      expect(guest.status).toBe(401);
      expect(guest.body['error']).toBe('auth_failed');
    });

    it('refuses an inactive admin (401 auth_access_fail) and an unknown resource (404 resource_not_exists)', async () => {
      const { headers, member } = await connectable();
      const unknown = await s.api(PATH, { headers: { ...headers, resource: 'res-none-such' } });
      expect(unknown.status).toBe(404);
      expect(unknown.body['error']).toBe('resource_not_exists');
      await s
        .db('identity')
        .collection('users')
        .updateOne({ _id: member.id as never }, { $set: { active: false } });
      const inactive = await s.api(PATH, { headers });
      expect(inactive.status).toBe(401);
      expect(inactive.body['error']).toBe('auth_access_fail');
    });

    it('needs the base secret key of the resource’s mode: 409 cardprovider_key_missing on all three', async () => {
      // Live mode (the default) while only the test key and client ID are stored.
      const tenant = await cardProviderTenant(s, { payments_in_live_mode: true });
      const { headers } = await signIn(tenant, 'admin');
      for (const method of ['GET', 'POST', 'DELETE']) {
        const response = await s.api(PATH, { method, headers, json: method === 'POST' ? { code: 'ac_x', state: 'x' } : undefined });
        expect(response.status, method).toBe(409);
        expect(response.body).toEqual({
          error: 'cardprovider_key_missing',
          error_description: 'No card-provider secret key for this resource in live mode',
          req_guid: anyRequestId,
        });
      }
    });

    it('needs the connect client ID: 409 cardprovider_client_id_missing', async () => {
      const tenant = await cardProviderTenant(s);
      const { headers } = await signIn(tenant, 'admin');
      const response = await s.api(PATH, { headers });
      expect(response.status).toBe(409);
      expect(response.body['error']).toBe('cardprovider_client_id_missing');
    });
  });

  describe(`POST ${PATH}`, () => {
    it('exchanges the code once, records the account with its tokens sealed, and returns no secret', async () => {
      const { headers, tenant, member } = await connectable();
      const before = callsFor('/oauth/token').length;
      const { response, code } = await connectAccount(headers);
      expect(response.body).toEqual({
        connected_account: {
          account_id: expect.stringMatching(/^acct_/),
          livemode: false,
          scope: 'read_write',
          publishable_key: expect.stringMatching(/^pk_test_/),
          connected_at: anyIsoDate,
          connected_by: member.id,
        },
      });
      const accountId = (response.body['connected_account'] as Json)['account_id'] as string;
      expectNoSecret(response.text);
      const tokenCalls = callsFor('/oauth/token').slice(before);
      expect(tokenCalls).toEqual([{ path: '/oauth/token', form: { grant_type: 'authorization_code', code } }]);
      expect(oauth.connected.get(accountId)).toBe(CLIENT_ID);
      // Stored sealed: no token in the row.
      const row = await s
        .db('billing')
        .collection('cardprovider_connections')
        .findOne({ _id: `${tenant.resourceId}:test` as never });
      expect(row?.['connected_account']).toMatchObject({ account_id: accountId, tokens: { key_id: expect.any(String) } });
      expect(JSON.stringify(row)).not.toMatch(/sk_test_[0-9a-f]{24}|rt_[0-9a-f]{24}/);
      // The guidance now shows it; the state is spent.
      expect((await guidance(headers))['connected_account']).toEqual(response.body['connected_account']);
    });

    it('refuses a replayed state (spent) and never sends a code twice from the same state', async () => {
      const { headers } = await connectable();
      const { code, state } = await connectAccount(headers);
      const before = oauth.calls.length;
      const again = await exchange(headers, { code, state });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ error: 'invalid_state', error_description: expect.any(String), req_guid: anyRequestId });
      expect(oauth.calls.length).toBe(before);
    });

    it('answers 409 invalid_code when the provider refuses a replayed code with a new state', async () => {
      const { headers } = await connectable();
      const { code } = await connectAccount(headers);
      const fresh = await guidance(headers);
      const replay = await exchange(headers, { code, state: fresh['state'] });
      expect(replay.status).toBe(409);
      expect(replay.body).toEqual({ error: 'invalid_code', error_description: expect.any(String), req_guid: anyRequestId });
      const unknown = await exchange(headers, { code: 'ac_unknown', state: fresh['state'] });
      expect(unknown.body['error']).toBe('invalid_code');
    });

    it('answers 409 invalid_state for a missing, unknown, expired, another admin’s or another resource’s state', async () => {
      const first = await connectable();
      const other = await signIn(first.tenant, 'admin');
      const elsewhere = await connectable();
      const { code, state } = await authorize((await guidance(first.headers))['authorize_url'] as string);
      const before = oauth.calls.length;
      for (const [headers, body] of [
        [first.headers, { code }],
        [first.headers, { code, state: 'not-a-state' }],
        [other.headers, { code, state }],
        [elsewhere.headers, { code, state }],
      ] as const) {
        const response = await exchange(headers, body);
        expect(response.status).toBe(409);
        expect(response.body['error']).toBe('invalid_state');
      }
      await s
        .db('billing')
        .collection('cardprovider_connect_states')
        .updateMany({ resource_id: first.tenant.resourceId }, { $set: { expires_at: new Date(Date.now() - 1000) } });
      expect((await exchange(first.headers, { code, state })).body['error']).toBe('invalid_state');
      expect(oauth.calls.length).toBe(before);
      const noCode = await exchange(first.headers, { state });
      expect(noCode.body['error']).toBe('invalid_code');
    });

    it('accepts form fields and answers one account to parallel duplicates of the same callback', async () => {
      const { headers } = await connectable();
      const { code, state } = await authorize((await guidance(headers))['authorize_url'] as string);
      const before = callsFor('/oauth/token').length;
      const answers = await Promise.all(Array.from({ length: 4 }, () => s.api(PATH, { method: 'POST', headers, form: { code, state } })));
      const ok = answers.filter((answer) => answer.status === 200);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      for (const answer of answers) if (answer.status !== 200) expect(answer.body['error']).toBe('invalid_state');
      expect(new Set(ok.map((answer) => (answer.body['connected_account'] as Json)['account_id'])).size).toBe(1);
      expect(callsFor('/oauth/token').length - before).toBe(1);
    });
  });

  describe(`DELETE ${PATH}`, () => {
    it('without a connected account: clears nothing and never calls the provider', async () => {
      const { headers } = await connectable();
      const before = callsFor('/oauth/deauthorize').length;
      const response = await clear(headers);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ result: true, deauthorized: false, account_id: null });
      expect(callsFor('/oauth/deauthorize').length).toBe(before);
    });

    it('with a connected account: deauthorizes it once on the provider, then forgets it', async () => {
      const { headers } = await connectable('partner');
      const { response } = await connectAccount(headers);
      const accountId = (response.body['connected_account'] as Json)['account_id'] as string;
      const before = callsFor('/oauth/deauthorize').length;
      const cleared = await clear(headers);
      expect(cleared.status).toBe(200);
      expect(cleared.body).toEqual({ result: true, deauthorized: true, account_id: accountId });
      expect(callsFor('/oauth/deauthorize').slice(before)).toEqual([
        { path: '/oauth/deauthorize', form: { client_id: CLIENT_ID, stripe_user_id: accountId } },
      ]);
      expect(oauth.connected.has(accountId)).toBe(false);
      expect((await guidance(headers))['connected_account']).toBeNull();
      expectNoSecret(cleared.text);
      // Cleared already: no second provider call.
      expect((await clear(headers)).body).toEqual({ result: true, deauthorized: false, account_id: null });
      expect(callsFor('/oauth/deauthorize').length).toBe(before + 1);
    });

    it('forgets an account the provider no longer connects (deauthorized: false)', async () => {
      const { headers } = await connectable('root');
      const { response } = await connectAccount(headers);
      const accountId = (response.body['connected_account'] as Json)['account_id'] as string;
      oauth.disconnectFromAccount(accountId);
      const cleared = await clear(headers);
      expect(cleared.status).toBe(200);
      expect(cleared.body).toEqual({ result: true, deauthorized: false, account_id: accountId });
      expect((await guidance(headers))['connected_account']).toBeNull();
    });
  });

  it('the operator sees the client ID and connected account, never a secret', async () => {
    const { headers, tenant } = await connectable();
    const { response } = await connectAccount(headers);
    const client = connections(s);
    try {
      const summary = await client.getConnection({ resourceId: tenant.resourceId, mode: 'test' });
      expect(summary).toMatchObject({
        clientId: CLIENT_ID,
        connectedAccountId: (response.body['connected_account'] as Json)['account_id'],
        hasSecretKey: true,
      });
      await expect(client.setClientId({ resourceId: tenant.resourceId, mode: 'test', clientId: 'pk_nope' })).rejects.toThrow(/client_id/);
      const bare = await createTenant(s.stack);
      await expect(client.setClientId({ resourceId: bare.resourceId, mode: 'test', clientId: CLIENT_ID })).rejects.toThrow(/secret key/);
    } finally {
      client.close();
    }
  });
});
