import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ServiceError } from '@masthead/core/errors';
import { ROUTES } from '@masthead/gateway';
import { ServiceAccountStatus } from '@masthead/proto/accounts/service_accounts';
import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { anyIsoDate, anyRequestId, eventually, expireSessionsOf, useStack } from './support.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

const GET_SUBSCRIPTION = 'GET /integrations/external/subscription';
const PATH = '/integrations/external/subscription';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const SERVICE_ACCOUNT_ROUTES = ROUTES.filter((route) => route.access === 'serviceAccount');

const error = (code: string, description: string) => ({ error: code, error_description: description, req_guid: anyRequestId });
const AUTH_FAILED = error('auth_failed', 'Authentication required');
const ACCESS = error('access', 'Access denied');
const ACCESS_FAIL = error('auth_access_fail', 'Account is inactive or its access to this resource is locked');
// A key change drops the gateway's cached resolution when its event arrives; an event that waits
// in the outbox under load is bounded by the cache TTL (10 s), so the wait allows for both.
const KEY_CHANGE_SEEN_MS = 15_000;

/** Service accounts (document 2, section I) and GET /integrations/external/subscription. */
describe('service accounts and the external subscription lookup', () => {
  // Cached key resolutions live far longer than any test here: only the service_account_updated
  // event can make a change visible in time.
  const s = useStack({ env: { SERVICE_KEY_CACHE_TTL_MS: '600000' } });

  const createAccount = (tenant: Tenant, options: { fullAccess?: boolean; grants?: string[]; userId?: number; title?: string } = {}) =>
    s.stack.operator.serviceAccounts.createServiceAccount({
      resourceId: tenant.resourceId,
      title: options.title ?? 'Store back end',
      fullAccess: options.fullAccess ?? false,
      grants: options.grants ?? (options.fullAccess ? [] : [GET_SUBSCRIPTION]),
      userId: options.userId,
    });

  const operatorError = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (failure: unknown) => (failure instanceof ServiceError ? { status: failure.status, code: failure.code } : failure),
    );

  /** A plan with pricings, through the operator API; returns the pricing IDs by title. */
  const catalog = async (
    tenant: Tenant,
    pricings: Array<{ title: string; ids: string; active?: boolean; private?: boolean }>,
    plan: { slug?: string; active?: boolean } = {},
  ) => {
    const created = await s.stack.operator.plans.upsertPlan({
      resourceId: tenant.resourceId,
      slug: plan.slug ?? 'apps',
      title: 'In-app',
      active: plan.active ?? true,
      private: false,
      fullAccess: true,
    });
    const ids: Record<string, number> = {};
    for (const pricing of pricings) {
      const row = await s.stack.operator.pricings.upsertPricing({
        planId: created.id,
        title: pricing.title,
        price: 499,
        currency: 'USD',
        period: '1 month',
        active: pricing.active ?? true,
        private: pricing.private ?? false,
        externalSourceIds: pricing.ids,
      });
      ids[pricing.title] = row.id;
    }
    return { planId: created.id, ids };
  };

  const signIn = async (tenant: Tenant, member: { email: string; password: string }) =>
    (await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: { email: member.email, password: member.password } }))
      .body['token'] as string;

  const lookup = (tenant: Tenant, headers: Record<string, string>, query = 'external_source_id=app-1') =>
    s.api(PATH, { headers: { resource: tenant.publicKey, ...headers }, query });

  describe('keys', () => {
    it('shows the key once at creation and stores only its SHA-256', async () => {
      const tenant = await createTenant(s.stack);
      const created = await createAccount(tenant, { grants: [GET_SUBSCRIPTION, 'get  /integrations/external/subscription'] });
      expect(created.key).toMatch(/^msk_[A-Za-z0-9_-]{43}$/);
      expect(created.account).toEqual({
        id: expect.any(Number),
        resourceId: tenant.resourceId,
        userId: expect.any(Number),
        title: 'Store back end',
        status: ServiceAccountStatus.SERVICE_ACCOUNT_STATUS_ACTIVE,
        fullAccess: false,
        // Normalized and de-duplicated.
        grants: [GET_SUBSCRIPTION],
        createdAt: anyIsoDate,
        requestCount: 0,
      });

      const accounts = s.db('accounts');
      const row = await accounts.collection('service_accounts').findOne({ _id: created.account!.id as never });
      expect(row).toMatchObject({ key_hash: sha256(created.key), resource_id: tenant.resourceId, revoked_at: null });
      expect(await accounts.collection('service_account_keys').findOne({ _id: sha256(created.key) as never })).toMatchObject({
        service_account_id: created.account!.id,
      });
      // The key itself is nowhere in storage.
      for (const name of ['service_accounts', 'service_account_keys', 'outbox']) {
        const rows = await accounts.collection(name).find().toArray();
        expect(JSON.stringify(rows), name).not.toContain(created.key);
      }

      // Reads never carry the key or its hash.
      const listed = await s.stack.operator.serviceAccounts.listServiceAccounts({ resourceId: tenant.resourceId });
      expect(listed.items).toEqual([created.account]);
      expect(JSON.stringify(listed)).not.toContain(sha256(created.key));

      // The account acts as a service-account user: no password, an undeliverable address.
      const user = await s
        .db('identity')
        .collection('users')
        .findOne({ _id: created.account!.userId as never });
      expect(user).toMatchObject({ role: 'service_account', password_hash: null, active: true, first_name: 'Store back end' });
      expect(user?.['email']).toMatch(/@service-accounts\.invalid$/);
      // ...which cannot sign in.
      const signInAttempt = await s.api('/authorization', {
        headers: { resource: tenant.publicKey },
        json: { email: user?.['email'], password: 'anything-at-all' },
      });
      expect(signInAttempt.status).toBe(401);
    });

    it('gives every key its own random value', async () => {
      const tenant = await createTenant(s.stack);
      const keys = await Promise.all([1, 2, 3].map(() => createAccount(tenant)));
      expect(new Set(keys.map((created) => created.key)).size).toBe(3);
      expect(new Set(keys.map((created) => created.account!.id)).size).toBe(3);
    });

    it('refuses unknown grants, an account with nothing granted, an unknown resource and a user that is not a service account', async () => {
      const tenant = await createTenant(s.stack);
      expect(await operatorError(createAccount(tenant, { grants: ['GET /plans'] }))).toEqual({ status: 400, code: 'invalid_grants' });
      expect(await operatorError(createAccount(tenant, { grants: ['GET /integrations/external/subscription/'] }))).toEqual({
        status: 400,
        code: 'invalid_grants',
      });
      expect(await operatorError(createAccount(tenant, { grants: [] }))).toEqual({ status: 400, code: 'invalid_grants' });
      expect(
        await operatorError(
          s.stack.operator.serviceAccounts.createServiceAccount({ resourceId: 0, title: 'x', fullAccess: true, grants: [] }),
        ),
      ).toEqual({ status: 400, code: 'invalid_resource_id' });
      expect(
        await operatorError(
          s.stack.operator.serviceAccounts.createServiceAccount({ resourceId: 99_999_999, title: 'x', fullAccess: true, grants: [] }),
        ),
      ).toEqual({ status: 404, code: 'resource_not_exists' });
      expect(await operatorError(createAccount(tenant, { title: '  ' }))).toEqual({ status: 400, code: 'invalid_title' });
      const member = await createMember(s.stack, tenant);
      expect(await operatorError(createAccount(tenant, { userId: member.id }))).toEqual({ status: 400, code: 'invalid_user_id' });
      expect(await operatorError(createAccount(tenant, { userId: 99_999_999 }))).toEqual({ status: 400, code: 'invalid_user_id' });
    });

    it('can attach a second account to an existing service-account user', async () => {
      const tenant = await createTenant(s.stack);
      const first = await createAccount(tenant);
      const second = await createAccount(tenant, { userId: first.account!.userId, fullAccess: true });
      expect(second.account?.userId).toBe(first.account!.userId);
      expect((await lookup(tenant, { 'service-api-key': second.key })).body).toEqual(
        error('subscription_not_found', 'Subscription not found'),
      );
    });

    it('revokes for good and answers unknown IDs with 404', async () => {
      const tenant = await createTenant(s.stack);
      const created = await createAccount(tenant);
      const revoked = await s.stack.operator.serviceAccounts.revokeServiceAccount({ id: created.account!.id });
      expect(revoked).toEqual({ ...created.account, revokedAt: anyIsoDate });
      // Revoking again changes nothing; a revoked account cannot be suspended or resumed.
      expect(await s.stack.operator.serviceAccounts.revokeServiceAccount({ id: created.account!.id })).toEqual(revoked);
      expect(
        await operatorError(
          s.stack.operator.serviceAccounts.setServiceAccountStatus({
            id: created.account!.id,
            status: ServiceAccountStatus.SERVICE_ACCOUNT_STATUS_ACTIVE,
          }),
        ),
      ).toEqual({ status: 409, code: 'service_account_revoked' });
      expect(await operatorError(s.stack.operator.serviceAccounts.revokeServiceAccount({ id: 99_999_999 }))).toEqual({
        status: 404,
        code: 'service_account_not_found',
      });
      expect(
        await operatorError(
          s.stack.operator.serviceAccounts.setServiceAccountStatus({
            id: created.account!.id,
            status: ServiceAccountStatus.SERVICE_ACCOUNT_STATUS_UNSPECIFIED,
          }),
        ),
      ).toEqual({ status: 400, code: 'invalid_status' });
    });
  });

  describe('access on the service-account routes', () => {
    it('lets a full-access account call every service-account route', async () => {
      const tenant = await createTenant(s.stack);
      await catalog(tenant, [{ title: 'Monthly', ids: 'app-1' }]);
      const { key } = await createAccount(tenant, { fullAccess: true });
      expect((await lookup(tenant, { 'service-api-key': key })).status).toBe(200);
      for (const route of SERVICE_ACCOUNT_ROUTES) {
        const response = await s.api(route.path, { method: route.method, headers: { resource: tenant.publicKey, 'service-api-key': key } });
        // Without a body each answers its own outcome (200, 404 or 406), never the access refusal.
        expect([401, 403], `${route.method} ${route.path}`).not.toContain(response.status);
      }
    });

    it('allows exactly the granted action: each route can be granted alone, and nothing else comes with it', async () => {
      const tenant = await createTenant(s.stack);
      await catalog(tenant, [{ title: 'Monthly', ids: 'app-1' }]);
      expect(SERVICE_ACCOUNT_ROUTES).toHaveLength(6);
      for (const granted of SERVICE_ACCOUNT_ROUTES) {
        const action = `${granted.method} ${granted.path}`;
        const { key } = await createAccount(tenant, { grants: [action] });
        for (const route of SERVICE_ACCOUNT_ROUTES) {
          const response = await s.api(route.path, {
            method: route.method,
            headers: { resource: tenant.publicKey, 'service-api-key': key },
            query: route.method === 'GET' ? 'external_source_id=app-1' : '',
          });
          // Its own route answers its own outcome (here without a body: 200, 404 or 406), never the access refusal.
          if (route === granted) expect([401, 403], `${action} on its own route`).not.toContain(response.status);
          else expect(response.body, `${action} on ${route.method} ${route.path}`).toEqual(ACCESS);
          if (route !== granted) expect(response.status).toBe(403);
        }
      }
    });

    it('refuses a suspended account with 401 auth_access_fail, at once even when cached, and lets it back in when resumed', async () => {
      const tenant = await createTenant(s.stack);
      await catalog(tenant, [{ title: 'Monthly', ids: 'app-1' }]);
      const { key, account } = await createAccount(tenant);
      expect((await lookup(tenant, { 'service-api-key': key })).status).toBe(200);
      await s.stack.operator.serviceAccounts.setServiceAccountStatus({
        id: account!.id,
        status: ServiceAccountStatus.SERVICE_ACCOUNT_STATUS_SUSPENDED,
      });
      // The cached resolution is dropped on service_account_updated.
      const refused = await eventually(async () => {
        const response = await lookup(tenant, { 'service-api-key': key });
        return response.status === 401 ? response : undefined;
      }, KEY_CHANGE_SEEN_MS);
      expect(refused.body).toEqual(ACCESS_FAIL);
      // A suspended key does not fall back to the token: a member token changes nothing.
      const member = await createMember(s.stack, tenant);
      const withToken = await lookup(tenant, { 'service-api-key': key, token: await signIn(tenant, member) });
      expect(withToken.status).toBe(401);
      expect(withToken.body).toEqual(ACCESS_FAIL);

      await s.stack.operator.serviceAccounts.setServiceAccountStatus({
        id: account!.id,
        status: ServiceAccountStatus.SERVICE_ACCOUNT_STATUS_ACTIVE,
      });
      await eventually(
        async () => ((await lookup(tenant, { 'service-api-key': key })).status === 200 ? true : undefined),
        KEY_CHANGE_SEEN_MS,
      );
    });

    it('falls back to ordinary resolution for a revoked key: guest → 401 auth_failed, member token → 403 access', async () => {
      const tenant = await createTenant(s.stack);
      await catalog(tenant, [{ title: 'Monthly', ids: 'app-1' }]);
      const { key, account } = await createAccount(tenant);
      expect((await lookup(tenant, { 'service-api-key': key })).status).toBe(200);
      await s.stack.operator.serviceAccounts.revokeServiceAccount({ id: account!.id });
      const guest = await eventually(async () => {
        const response = await lookup(tenant, { 'service-api-key': key });
        return response.status === 401 ? response : undefined;
      }, KEY_CHANGE_SEEN_MS);
      expect(guest.body).toEqual(AUTH_FAILED);
      const member = await createMember(s.stack, tenant);
      const withToken = await lookup(tenant, { 'service-api-key': key, token: await signIn(tenant, member) });
      expect(withToken.status).toBe(403);
      expect(withToken.body).toEqual(ACCESS);
    });

    it('falls back to ordinary resolution for an invalid key, shared session checks included', async () => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant);
      const token = await signIn(tenant, member);
      for (const key of ['msk_' + 'A'.repeat(43), 'not-a-key', 'msk_']) {
        const guest = await lookup(tenant, { 'service-api-key': key });
        expect(guest.status, key).toBe(401);
        expect(guest.body).toEqual(AUTH_FAILED);
        const withToken = await lookup(tenant, { 'service-api-key': key, token });
        expect(withToken.status, key).toBe(403);
        expect(withToken.body).toEqual(ACCESS);
      }
      await expireSessionsOf(s, member.id);
      const expired = await lookup(tenant, { 'service-api-key': 'not-a-key', token });
      expect(expired.status).toBe(401);
      expect(expired.body).toEqual(error('token_expired', 'Session token has expired'));
    });

    it('refuses a member token alone (403 access), and no credentials at all (401 auth_failed)', async () => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant);
      const admin = await createMember(s.stack, tenant, { role: 'admin' });
      for (const token of [await signIn(tenant, member), await signIn(tenant, admin)]) {
        const response = await lookup(tenant, { token });
        expect(response.status).toBe(403);
        expect(response.body).toEqual(ACCESS);
      }
      const none = await lookup(tenant, {});
      expect(none.status).toBe(401);
      expect(none.body).toEqual(AUTH_FAILED);
    });

    it('lets root through without a key (root bypasses the ACL), with admin-only fields', async () => {
      const tenant = await createTenant(s.stack);
      const { ids } = await catalog(tenant, [{ title: 'Monthly', ids: 'app-1' }]);
      const root = await createMember(s.stack, tenant, { role: 'root' });
      const response = await lookup(tenant, { token: await signIn(tenant, root) });
      expect(response.status).toBe(200);
      expect(response.body['subscription']).toMatchObject({
        id: ids['Monthly'],
        created_at: anyIsoDate,
        updated_at: anyIsoDate,
        country_vat: null,
      });
    });

    it('treats a key of another resource as no key', async () => {
      const tenant = await createTenant(s.stack);
      const other = await createTenant(s.stack);
      await catalog(other, [{ title: 'Monthly', ids: 'app-1' }]);
      const { key } = await createAccount(tenant, { fullAccess: true });
      const response = await lookup(other, { 'service-api-key': key });
      expect(response.status).toBe(401);
      expect(response.body).toEqual(AUTH_FAILED);
    });

    it('refuses an account whose user is inactive, or locked or suspended in the resource (401 auth_access_fail)', async () => {
      const tenant = await createTenant(s.stack);
      const users = s.db('identity').collection('users');
      const inactive = await createAccount(tenant);
      await users.updateOne({ _id: inactive.account!.userId as never }, { $set: { active: false } });
      const response = await lookup(tenant, { 'service-api-key': inactive.key });
      expect(response.status).toBe(401);
      expect(response.body).toEqual(ACCESS_FAIL);

      for (const status of ['locked', 'suspended']) {
        const created = await createAccount(tenant);
        const now = new Date();
        await s
          .db('identity')
          .collection('relationships')
          .insertOne({
            _id: `${tenant.resourceId}:${created.account!.userId}` as never,
            resource_id: tenant.resourceId,
            user_id: created.account!.userId,
            status,
            role: 'user',
            password_hash: null,
            extra: {},
            created_at: now,
            updated_at: now,
          });
        const locked = await lookup(tenant, { 'service-api-key': created.key });
        expect(locked.status, status).toBe(401);
        expect(locked.body).toEqual(ACCESS_FAIL);
      }
    });

    it('refuses an account whose user is not a service-account user', async () => {
      const tenant = await createTenant(s.stack);
      const created = await createAccount(tenant);
      await s
        .db('identity')
        .collection('users')
        .updateOne({ _id: created.account!.userId as never }, { $set: { role: 'user' } });
      const response = await lookup(tenant, { 'service-api-key': created.key });
      expect(response.status).toBe(401);
      expect(response.body).toEqual(ACCESS_FAIL);
    });

    it('checks the resource first: missing or unknown resource is 404 resource_not_exists', async () => {
      const tenant = await createTenant(s.stack);
      const { key } = await createAccount(tenant, { fullAccess: true });
      const attempts: Array<Record<string, string>> = [
        { 'service-api-key': key },
        { 'service-api-key': key, resource: 'no-such-resource' },
      ];
      for (const headers of attempts) {
        const response = await s.api(PATH, { headers, query: 'external_source_id=app-1' });
        expect(response.status).toBe(404);
        expect(response.body).toEqual(error('resource_not_exists', 'Resource does not exist'));
      }
    });

    it('ignores the key on routes that are not service-account routes', async () => {
      const tenant = await createTenant(s.stack);
      const { key } = await createAccount(tenant, { fullAccess: true });
      const response = await s.api('/user', { headers: { resource: tenant.publicKey, 'service-api-key': key } });
      expect(response.status).toBe(401);
      expect(response.body).toEqual(AUTH_FAILED);
    });

    it('records each request: a request counter and the last use, off the request path', async () => {
      const tenant = await createTenant(s.stack);
      const granted = await createAccount(tenant);
      await Promise.all([1, 2, 3].map(() => lookup(tenant, { 'service-api-key': granted.key })));
      // A refused action still used the key.
      expect((await s.api(PATH, { method: 'POST', headers: { resource: tenant.publicKey, 'service-api-key': granted.key } })).status).toBe(
        403,
      );
      const used = await eventually(async () => {
        const [account] = (await s.stack.operator.serviceAccounts.listServiceAccounts({ resourceId: tenant.resourceId })).items;
        return account && account.requestCount >= 4 ? account : undefined;
      });
      expect(used).toMatchObject({ requestCount: 4, lastUsedAt: anyIsoDate });
      expect(Date.parse(used.lastUsedAt!)).toBeGreaterThanOrEqual(Date.parse(used.createdAt));
    });
  });

  describe('GET /integrations/external/subscription', () => {
    const setUp = async () => {
      const tenant = await createTenant(s.stack);
      const { planId, ids } = await catalog(tenant, [
        { title: 'Monthly', ids: 'app-1,app-10' },
        { title: 'Yearly', ids: 'Store.Yearly , WEB-Y' },
        { title: 'Private', ids: 'hidden-1', private: true },
        { title: 'Retired', ids: 'old-1', active: false },
        { title: 'Twin', ids: 'app-10,twin' },
      ]);
      const { key } = await createAccount(tenant);
      const get = (query: string) => lookup(tenant, { 'service-api-key': key }, query);
      return { tenant, planId, ids, key, get };
    };

    it('answers the Pricing whose ids hold the value as one complete comma-separated token', async () => {
      const { planId, ids, get } = await setUp();
      const response = await get('external_source_id=app-1');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        subscription: {
          id: ids['Monthly'],
          plan_id: planId,
          title: 'Monthly',
          price: 499,
          currency: 'USD',
          period: '1 month',
          external_source_ids: 'app-1,app-10',
          active: true,
          private: false,
          type: 'standard',
          public: true,
          next_subscription: null,
          downgrade_subscription: null,
          plan: { id: planId, title: 'In-app', full_access: true },
        },
      });
      const subscriptionOf = async (query: string) => {
        const found = await get(query);
        return found.status === 200 ? (found.body['subscription'] as Record<string, unknown>)['id'] : found.body['error'];
      };
      // A substring of a token is not a token.
      expect(await subscriptionOf('external_source_id=app')).toBe('subscription_not_found');
      expect(await subscriptionOf('external_source_id=pp-1')).toBe('subscription_not_found');
      expect(await subscriptionOf('external_source_id=app-1%2Capp-10')).toBe('subscription_not_found');
      // Regular-expression characters are literal.
      expect(await subscriptionOf('external_source_id=app.1')).toBe('subscription_not_found');
      expect(await subscriptionOf('external_source_id=store.yearly')).toBe(ids['Yearly']);
      // Case and surrounding spaces are normalized, on both sides; tags are stripped.
      expect(await subscriptionOf('external_source_id=%20%20APP-1%09')).toBe(ids['Monthly']);
      expect(await subscriptionOf('external_source_id=web-y')).toBe(ids['Yearly']);
      expect(await subscriptionOf('external_source_id=%3Cb%3Eapp-1%3C%2Fb%3E')).toBe(ids['Monthly']);
      // Several matches: the lowest Pricing ID, every time.
      expect(await subscriptionOf('external_source_id=app-10')).toBe(ids['Monthly']);
      expect(await subscriptionOf('external_source_id=twin')).toBe(ids['Twin']);
    });

    it('does not require the Pricing (or its plan) to be active or public', async () => {
      const { ids, get } = await setUp();
      const hidden = await get('external_source_id=hidden-1');
      expect(hidden.status).toBe(200);
      expect(hidden.body['subscription']).toMatchObject({ id: ids['Private'], private: true, public: false });
      expect(hidden.body['subscription']).not.toHaveProperty('created_at');
      const retired = await get('external_source_id=old-1');
      expect(retired.body['subscription']).toMatchObject({ id: ids['Retired'], active: false });

      const tenant = await createTenant(s.stack);
      const inactivePlan = await catalog(tenant, [{ title: 'Gone', ids: 'gone-1' }], { slug: 'gone', active: false });
      const { key } = await createAccount(tenant);
      const response = await lookup(tenant, { 'service-api-key': key }, 'external_source_id=gone-1');
      expect(response.status).toBe(200);
      expect(response.body['subscription']).toMatchObject({ id: inactivePlan.ids['Gone'], plan: { id: inactivePlan.planId } });
    });

    it('looks only in the request’s resource', async () => {
      const { get } = await setUp();
      const other = await createTenant(s.stack);
      await catalog(other, [{ title: 'Elsewhere', ids: 'only-there' }]);
      const response = await get('external_source_id=only-there');
      expect(response.status).toBe(404);
      expect(response.body).toEqual(error('subscription_not_found', 'Subscription not found'));
    });

    it('answers 409 external_source_id_required without a single string value', async () => {
      const { get } = await setUp();
      for (const query of [
        '',
        'external_source_id=',
        'external_source_id',
        'external_source_id=a&external_source_id=b',
        'external_source_id[x]=a',
      ]) {
        const response = await get(query);
        expect(response.status, query).toBe(409);
        expect(response.body).toEqual(error('external_source_id_required', 'external_source_id is required'));
      }
    });

    it('answers 409 subscription_source_id_required when nothing is left once sanitized', async () => {
      const { get } = await setUp();
      for (const query of ['external_source_id=%20%20%20', 'external_source_id=%3Ci%3E%3C%2Fi%3E', 'external_source_id=%00%09']) {
        const response = await get(query);
        expect(response.status, query).toBe(409);
        expect(response.body).toEqual(
          error('subscription_source_id_required', 'external_source_id is empty once tags, control characters and spaces are removed'),
        );
      }
    });

    it('answers 404 subscription_not_found for an unknown ID', async () => {
      const { get } = await setUp();
      const response = await get('external_source_id=nothing-like-it');
      expect(response.status).toBe(404);
      expect(response.body).toEqual(error('subscription_not_found', 'Subscription not found'));
    });

    it('answers 404 not_found when the matched Pricing’s plan no longer exists', async () => {
      const { planId, get } = await setUp();
      await s
        .db('catalog')
        .collection('plans')
        .deleteOne({ _id: planId as never });
      const response = await get('external_source_id=app-1');
      expect(response.status).toBe(404);
      expect(response.body).toEqual(error('not_found', 'Not found'));
    });

    it('answers 400 external_subscription_failed, with its literal description, when the lookup itself fails', async () => {
      const { tenant, get } = await setUp();
      // A stored row the lookup cannot read (external_source_ids is not a string).
      const now = new Date();
      await s
        .db('catalog')
        .collection('pricings')
        .insertOne({
          _id: 88_000_000 + tenant.resourceId,
          plan_id: 1,
          resource_id: tenant.resourceId,
          title: 'Broken',
          price: 1,
          currency: 'USD',
          period: '1 month',
          active: true,
          private: false,
          external_source_ids: ['broken-1'],
          users_limit: null,
          country_vat: null,
          created_at: now,
          updated_at: now,
        } as never);
      const response = await get('external_source_id=broken-1');
      expect(response.status).toBe(400);
      expect(response.body).toEqual(error('external_subscription_failed', 'Failed to create external subscription'));
    });
  });

  describe('admin CLI', () => {
    const cli = (...args: string[]) =>
      run(process.execPath, ['tools/admin/dist/cli.js', ...args], { cwd: repoRoot, env: { ...process.env, ...s.stack.env } });

    it('creates an account and prints its key once, lists without keys, revokes', async () => {
      const tenant = await createTenant(s.stack);
      await catalog(tenant, [{ title: 'Monthly', ids: 'app-1' }]);
      const created = await cli(
        'create-service-account',
        '--resource-id',
        String(tenant.resourceId),
        '--title',
        'Mobile app',
        '--grant',
        GET_SUBSCRIPTION,
        '--grant',
        'GET /integrations/external/transaction',
      );
      const printed = JSON.parse(created.stdout) as Record<string, unknown>;
      expect(printed).toEqual({
        id: expect.any(Number),
        resource_id: tenant.resourceId,
        user_id: expect.any(Number),
        title: 'Mobile app',
        status: 'active',
        full_access: false,
        grants: [GET_SUBSCRIPTION, 'GET /integrations/external/transaction'],
        created_at: anyIsoDate,
        last_used_at: null,
        revoked_at: null,
        request_count: 0,
        key: expect.stringMatching(/^msk_/),
      });
      expect(created.stderr).toContain('shown once');
      const key = printed['key'] as string;
      expect((await lookup(tenant, { 'service-api-key': key })).status).toBe(200);

      const listed = await cli('list-service-accounts', '--resource-id', String(tenant.resourceId));
      expect(listed.stdout).not.toContain(key);
      expect(listed.stdout).not.toContain(sha256(key));
      const [item, ...others] = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
      expect(others).toEqual([]);
      expect(Object.keys(item!).sort()).toEqual(
        Object.keys(printed)
          .filter((name) => name !== 'key')
          .sort(),
      );
      expect(item).toMatchObject({ id: printed['id'], title: 'Mobile app', grants: printed['grants'] });

      const suspended = await cli('suspend-service-account', '--id', String(printed['id']));
      expect(JSON.parse(suspended.stdout)).toMatchObject({ status: 'suspended' });
      await eventually(
        async () => ((await lookup(tenant, { 'service-api-key': key })).status === 401 ? true : undefined),
        KEY_CHANGE_SEEN_MS,
      );
      await cli('resume-service-account', '--id', String(printed['id']));

      const revoked = await cli('revoke-service-account', '--id', String(printed['id']));
      expect(JSON.parse(revoked.stdout)).toMatchObject({ id: printed['id'], revoked_at: anyIsoDate });
      expect(revoked.stdout).not.toContain(key);
      const fallback = await eventually(async () => {
        const response = await lookup(tenant, { 'service-api-key': key });
        return response.body['error'] === 'auth_failed' ? response : undefined;
      }, KEY_CHANGE_SEEN_MS);
      expect(fallback.status).toBe(401);
    });

    it('refuses an unknown grant and a missing resource, naming them', async () => {
      const tenant = await createTenant(s.stack);
      const badGrant = await cli(
        'create-service-account',
        '--resource-id',
        String(tenant.resourceId),
        '--title',
        'T',
        '--grant',
        'GET /plans',
      ).catch((failure: { code: number; stderr: string }) => failure);
      expect(badGrant).toMatchObject({ code: 1, stderr: expect.stringContaining('invalid_grants') });
      const missing = await cli('create-service-account', '--title', 'T', '--full-access').catch(
        (failure: { code: number; stderr: string }) => failure,
      );
      expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('--resource-id is required') });
      expect((await s.stack.operator.serviceAccounts.listServiceAccounts({ resourceId: tenant.resourceId })).items).toEqual([]);
    });
  });
});
