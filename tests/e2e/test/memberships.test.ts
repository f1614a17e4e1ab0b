import type { Plan, Pricing } from '@masthead/proto/catalog';
import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { catalogKit, publicPricing, type Json, type JsonList } from './catalog-support.js';
import { anyIsoDate, anyRequestId, collectEvents, eventually, useStack } from './support.js';

/**
 * The member's own catalog (document 1, sections C and F): GET /user/plans, PUT and DELETE
 * /user/subscriptions/{id}, GET /user/plans/history.
 */
describe('member plans and memberships', () => {
  const s = useStack();
  const kit = catalogKit(s);

  /** A resource with four plans, and a member holding four memberships in three of them. */
  async function arrange() {
    const tenant = await createTenant(s.stack);
    const digital = await kit.plan(tenant, 'digital', { title: 'Digital', fullAccess: true });
    const digitalMonthly = await kit.pricing(digital.id, 'Digital monthly', { price: 999 });
    const digitalYearly = await kit.pricing(digital.id, 'Digital yearly', { price: 9900, currency: 'EUR', period: '1 year' });
    const print = await kit.plan(tenant, 'print', { title: 'Print', private: true });
    const printMonthly = await kit.pricing(print.id, 'Print monthly', { price: 1500, private: true });
    const retired = await kit.plan(tenant, 'retired', { title: 'Retired', active: false });
    const retiredYearly = await kit.pricing(retired.id, 'Retired yearly', { price: 100, period: '1 year' });
    const news = await kit.plan(tenant, 'news', { title: 'News' });
    const newsMonthly = await kit.pricing(news.id, 'News monthly', { price: 300 });

    const member = await kit.signedInMember(tenant);
    const memberships = {
      digitalMonthly: await kit.grant(tenant, member.id, digitalMonthly.id, true),
      digitalYearly: await kit.grant(tenant, member.id, digitalYearly.id),
      printMonthly: await kit.grant(tenant, member.id, printMonthly.id),
      retiredYearly: await kit.grant(tenant, member.id, retiredYearly.id),
    };
    // Someone else's membership, never shown to the member.
    const other = await kit.signedInMember(tenant);
    const othersMembership = await kit.grant(tenant, other.id, newsMonthly.id);
    const plans = { digital, print, retired, news };
    const pricings = { digitalMonthly, digitalYearly, printMonthly, retiredYearly, newsMonthly };
    return { tenant, member, other, othersMembership, memberships, plans, pricings };
  }

  const headers = (tenant: Tenant, token: string) => ({ resource: tenant.publicKey, token });

  /** The membership projection: the Pricing plus the membership's own fields (ADR 0007). */
  const membershipJson = (pricing: Pricing, plan: Plan, id: number, autorenew: boolean) => ({
    ...publicPricing(pricing, plan),
    user_subscription_id: id,
    subscription_end_date: anyIsoDate,
    autorenew,
    is_team_subscription: false,
  });

  describe('GET /user/plans', () => {
    let a: Awaited<ReturnType<typeof arrange>>;
    beforeAll(async () => {
      a = await arrange();
    });
    const list = (query = 'page=1') => s.api('/user/plans', { headers: headers(a.tenant, a.member.token), query });
    const slugs = (body: Json) => (body['items'] as JsonList).map((item) => item['slug']);
    const shownMembership = (body: Json, index = 0) =>
      ((body['items'] as JsonList)[index]!['subscription'] as Json)['user_subscription_id'];

    it('lists the distinct plans of the member, newest plan first, each with one membership as `subscription`', async () => {
      const response = await list();
      expect(response.status).toBe(200);
      const { digital, print, retired } = a.plans;
      expect(response.body).toEqual({
        items: [
          // No active/private filter on plans and pricings: the inactive and the private plan show.
          {
            id: retired.id,
            title: 'Retired',
            slug: 'retired',
            active: false,
            private: false,
            subscription: membershipJson(a.pricings.retiredYearly, retired, a.memberships.retiredYearly, false),
          },
          {
            id: print.id,
            title: 'Print',
            slug: 'print',
            active: true,
            private: true,
            subscription: membershipJson(a.pricings.printMonthly, print, a.memberships.printMonthly, false),
          },
          {
            id: digital.id,
            title: 'Digital',
            slug: 'digital',
            active: true,
            private: false,
            // Two memberships of this plan: the newest one represents it.
            subscription: membershipJson(a.pricings.digitalYearly, digital, a.memberships.digitalYearly, false),
          },
        ],
        paginator: { current_page: 1, page: 1, total_pages: 1, total_items: 3, limit: 10 },
      });
    });

    it('filters over plan, pricing and membership fields, as a bracket map or a JSON string', async () => {
      const bySubscription = await list(`filter[Subscriptions.id]=${a.pricings.digitalMonthly.id}`);
      expect(slugs(bySubscription.body)).toEqual(['digital']);
      expect(shownMembership(bySubscription.body)).toBe(a.memberships.digitalMonthly);

      const renewing = await list('filter[UsersPlans.autorenew]=true');
      expect(slugs(renewing.body)).toEqual(['digital']);
      expect(shownMembership(renewing.body)).toBe(a.memberships.digitalMonthly);

      expect(slugs((await list('filter[Plans.title]=IGIT')).body)).toEqual(['digital']);
      expect(slugs((await list('filter[Subscriptions.currency]=eur')).body)).toEqual(['digital']);
      expect(slugs((await list('filter[Plans.private]=1')).body)).toEqual(['print']);
      const json = { 'Plans.id': [a.plans.digital.id, a.plans.print.id], 'Subscriptions.price': [999, 1500] };
      const combined = await list(`filter=${encodeURIComponent(JSON.stringify(json))}`);
      expect(slugs(combined.body)).toEqual(['print', 'digital']);
      expect(shownMembership(combined.body, 1)).toBe(a.memberships.digitalMonthly);
      expect(slugs((await list(`filter[UsersPlans.id]=${a.othersMembership}`)).body)).toEqual([]);
    });

    it('orders by any listed field (order wins over by) and shows the first membership in that order', async () => {
      const byPrice = await list('order=Subscriptions.price&by=Plans.title&sort=ASC');
      expect(slugs(byPrice.body)).toEqual(['retired', 'digital', 'print']);
      expect(shownMembership(byPrice.body, 1)).toBe(a.memberships.digitalMonthly);
      expect(slugs((await list('by=Plans.title&sort=asc')).body)).toEqual(['digital', 'print', 'retired']);
      expect(slugs((await list('order=UsersPlans.created_at&sort=ASC')).body)).toEqual(['digital', 'print', 'retired']);
      expect(slugs((await list('order=Plans.created_at&sort=ASC')).body)).toEqual(['digital', 'print', 'retired']);
    });

    it('pages the distinct plans', async () => {
      const page = await list('page=2&limit=2');
      expect(slugs(page.body)).toEqual(['digital']);
      expect(page.body['paginator']).toEqual({ current_page: 2, page: 2, total_pages: 2, total_items: 3, limit: 2 });
    });

    it('refuses unknown filters, bad values and unknown orders with 409 field errors', async () => {
      const response = await list('filter[Plans.secret]=1&filter[UsersPlans.id]=abc&filter[id]=1&order=Plans.nope');
      expect(response.status).toBe(409);
      expect(response.body).toEqual({
        error: true,
        error_fields: {
          'filter.Plans.secret': expect.any(String),
          'filter.UsersPlans.id': expect.any(String),
          'filter.id': expect.any(String),
          order: expect.any(String),
        },
        req_guid: anyRequestId,
      });
      const sort = await list('sort=UP');
      expect(sort.status).toBe(409);
      expect(sort.body['error_fields']).toEqual({ sort: expect.any(String) });
    });

    it('answers an empty list for a member without memberships, and 401 without a token', async () => {
      const response = await s.api('/user/plans', { headers: headers(a.tenant, a.other.token), query: 'filter[Plans.slug]=digital' });
      expect(response.body).toEqual({ items: [], paginator: { current_page: 1, page: 1, total_pages: 0, total_items: 0, limit: 10 } });
      const guest = await s.api('/user/plans', { headers: { resource: a.tenant.publicKey } });
      expect(guest.status).toBe(401);
      expect(guest.body).toEqual({ error: 'auth_failed', error_description: expect.any(String), req_guid: anyRequestId });
    });

    it('adds admin-only fields in admin context', async () => {
      const admin = await kit.signedInMember(a.tenant, 'admin');
      await kit.grant(a.tenant, admin.id, a.pricings.newsMonthly.id);
      const response = await s.api('/user/plans', { headers: headers(a.tenant, admin.token) });
      const [item] = response.body['items'] as JsonList;
      expect(item).toMatchObject({ slug: 'news', created_at: anyIsoDate, updated_at: anyIsoDate });
      expect(item!['subscription']).toMatchObject({ created_at: anyIsoDate, updated_at: anyIsoDate, country_vat: null });
    });
  });

  describe('PUT /user/subscriptions/{id}', () => {
    it('changes autorenew, writes a history row and publishes membership_renewal_changed; an unchanged flag writes nothing', async () => {
      const a = await arrange();
      const events = collectEvents(s.nats, 'membership_renewal_changed');
      await s.nats.flush();
      const put = (autorenew: unknown) =>
        s.api(`/user/subscriptions/${a.memberships.digitalMonthly}`, {
          method: 'PUT',
          headers: headers(a.tenant, a.member.token),
          json: { autorenew, ignored: 'unknown keys are ignored' },
        });

      const response = await put(false);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        item: membershipJson(a.pricings.digitalMonthly, a.plans.digital, a.memberships.digitalMonthly, false),
      });
      const row = await s
        .db('catalog')
        .collection('memberships')
        .findOne({ _id: a.memberships.digitalMonthly as never });
      expect(row).toMatchObject({ autorenew: false, active: true });

      const mine = (event: Json) => event['resource_id'] === a.tenant.resourceId;
      const [event] = await eventually(async () => (events.filter(mine).length > 0 ? events.filter(mine) : undefined));
      expect(event).toMatchObject({
        name: 'membership_renewal_changed',
        source: 'catalog',
        payload: {
          membership_id: a.memberships.digitalMonthly,
          user_id: a.member.id,
          pricing_id: a.pricings.digitalMonthly.id,
          plan_id: a.plans.digital.id,
          autorenew: false,
        },
      });

      // The same value again: 200 with the membership, no history row, no event.
      const again = await put(false);
      expect(again.status).toBe(200);
      expect((again.body['item'] as Json)['autorenew']).toBe(false);
      const changes = await s
        .db('catalog')
        .collection('membership_history')
        .find({ membership_id: a.memberships.digitalMonthly, action: 'renewal_changed' })
        .toArray();
      expect(changes).toHaveLength(1);

      expect((await put(true)).body).toMatchObject({ item: { autorenew: true } });
      await eventually(async () => (events.filter(mine).length === 2 ? true : undefined));
      await s.nats.flush();
      expect(events.filter(mine).map((item) => (item['payload'] as Json)['autorenew'])).toEqual([false, true]);
    });

    it('takes only a JSON boolean: 409 invalid_autorenew, 400 incorrect_data for a missing, malformed or form body', async () => {
      const a = await arrange();
      const path = `/user/subscriptions/${a.memberships.digitalYearly}`;
      const put = (request: { json?: unknown; raw?: string; form?: Record<string, string>; contentType?: string }) =>
        s.api(path, {
          method: 'PUT',
          headers: { ...headers(a.tenant, a.member.token), ...(request.contentType ? { 'content-type': request.contentType } : {}) },
          json: request.json,
          raw: request.raw,
          form: request.form,
        });
      const invalid = { error: 'invalid_autorenew', error_description: 'autorenew must be a JSON boolean', req_guid: anyRequestId };
      const incorrect = { error: 'incorrect_data', error_description: 'The body must be a JSON object', req_guid: anyRequestId };
      for (const value of ['true', 1, null, {}, []]) {
        const response = await put({ json: { autorenew: value } });
        expect(response.status, JSON.stringify(value)).toBe(409);
        expect(response.body).toEqual(invalid);
      }
      expect((await put({ json: {} })).body).toEqual(invalid);
      for (const request of [
        { json: [true] },
        { json: true },
        { raw: '{"autorenew": tru', contentType: 'application/json' },
        { raw: '', contentType: 'application/json' },
        { form: { autorenew: 'true' } },
      ]) {
        const response = await put(request);
        expect(response.status, JSON.stringify(request)).toBe(400);
        expect(response.body).toEqual(incorrect);
      }
      const row = await s
        .db('catalog')
        .collection('memberships')
        .findOne({ _id: a.memberships.digitalYearly as never });
      expect(row).toMatchObject({ autorenew: false });
    });

    it("answers 404 subscription_not_found for another user's, another resource's, a Pricing ID or a malformed ID", async () => {
      const a = await arrange();
      // The same person in a second resource, with a membership there.
      const second = await createTenant(s.stack);
      await createMember(s.stack, second, { email: a.member.email, password: a.member.password });
      const secondPlan = await kit.plan(second, 'elsewhere');
      const elsewhere = await kit.grant(second, a.member.id, (await kit.pricing(secondPlan.id, 'Elsewhere monthly')).id);
      const notFound = { error: 'subscription_not_found', error_description: 'Subscription not found', req_guid: anyRequestId };
      // A Pricing ID that is no membership ID of the member's (the two ID spaces are separate).
      const mine: number[] = Object.values(a.memberships);
      const pricingId = Object.values(a.pricings)
        .map((pricing) => pricing.id)
        .find((id) => !mine.includes(id))!;
      for (const id of [a.othersMembership, elsewhere, pricingId, 987_654_321, 0, 'abc', '12x']) {
        for (const method of ['PUT', 'DELETE']) {
          const response = await s.api(`/user/subscriptions/${id}`, {
            method,
            headers: headers(a.tenant, a.member.token),
            json: { autorenew: true },
          });
          expect(response.status, `${method} ${id}`).toBe(404);
          expect(response.body).toEqual(notFound);
        }
      }
      const untouched = await s
        .db('catalog')
        .collection('memberships')
        .findOne({ _id: a.othersMembership as never });
      expect(untouched).toMatchObject({ active: true, autorenew: false });
    });

    it('needs a member token', async () => {
      const a = await arrange();
      const response = await s.api(`/user/subscriptions/${a.memberships.digitalMonthly}`, {
        method: 'PUT',
        headers: { resource: a.tenant.publicKey },
        json: { autorenew: false },
      });
      expect(response.status).toBe(401);
      expect(response.body['error']).toBe('auth_failed');
    });
  });

  describe('DELETE /user/subscriptions/{id}', () => {
    it('detaches: inactive membership, claim released, history row, membership_detached; then 404', async () => {
      const a = await arrange();
      const events = collectEvents(s.nats, 'membership_detached');
      await s.nats.flush();
      const id = a.memberships.digitalYearly;
      const claimId = `${a.tenant.resourceId}:${a.member.id}:${a.pricings.digitalYearly.id}`;
      expect(
        await s
          .db('catalog')
          .collection('membership_claims')
          .findOne({ _id: claimId as never }),
      ).toMatchObject({ membership_id: id });

      const response = await s.api(`/user/subscriptions/${id}`, { method: 'DELETE', headers: headers(a.tenant, a.member.token) });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ result: true });

      expect(
        await s
          .db('catalog')
          .collection('memberships')
          .findOne({ _id: id as never }),
      ).toMatchObject({ active: false });
      expect(
        await s
          .db('catalog')
          .collection('membership_claims')
          .findOne({ _id: claimId as never }),
      ).toBeNull();
      const history = await s.db('catalog').collection('membership_history').find({ membership_id: id }).sort({ _id: 1 }).toArray();
      expect(history.map((row) => row['action'])).toEqual(['created', 'detached']);
      const mine = () => events.filter((event) => event['resource_id'] === a.tenant.resourceId);
      const [event] = await eventually(async () => (mine().length > 0 ? mine() : undefined));
      expect(event).toMatchObject({
        name: 'membership_detached',
        source: 'catalog',
        payload: { membership_id: id, user_id: a.member.id, pricing_id: a.pricings.digitalYearly.id, plan_id: a.plans.digital.id },
      });

      // Gone from the member's views; the plan stays through the other Digital membership.
      const plans = await s.api('/user/plans', { headers: headers(a.tenant, a.member.token) });
      const digital = (plans.body['items'] as JsonList).find((item) => item['slug'] === 'digital')!;
      expect((digital['subscription'] as Json)['user_subscription_id']).toBe(a.memberships.digitalMonthly);
      const profile = await s.api('/user', { headers: headers(a.tenant, a.member.token) });
      expect((profile.body['subscriptions'] as JsonList).map((item) => item['user_subscription_id'])).not.toContain(id);

      const again = await s.api(`/user/subscriptions/${id}`, { method: 'DELETE', headers: headers(a.tenant, a.member.token) });
      expect(again.status).toBe(404);
      expect(again.body['error']).toBe('subscription_not_found');
      const put = await s.api(`/user/subscriptions/${id}`, {
        method: 'PUT',
        headers: headers(a.tenant, a.member.token),
        json: { autorenew: true },
      });
      expect(put.status).toBe(404);

      // The released claim lets the member be given that pricing again at once.
      const regranted = await kit.grant(a.tenant, a.member.id, a.pricings.digitalYearly.id);
      expect(regranted).not.toBe(id);
    });

    it('detaches exactly once under parallel requests (one history row, one event)', async () => {
      const a = await arrange();
      const events = collectEvents(s.nats, 'membership_detached');
      await s.nats.flush();
      const id = a.memberships.printMonthly;
      const responses = await Promise.all(
        Array.from({ length: 8 }, () =>
          s.api(`/user/subscriptions/${id}`, { method: 'DELETE', headers: headers(a.tenant, a.member.token) }),
        ),
      );
      expect(responses.map((response) => response.status).sort()).toEqual([200, 404, 404, 404, 404, 404, 404, 404]);
      const detached = await s.db('catalog').collection('membership_history').countDocuments({ membership_id: id, action: 'detached' });
      expect(detached).toBe(1);
      // Every event that will come has come once the outbox is empty and NATS has caught up.
      await eventually(async () => ((await s.db('catalog').collection('outbox').countDocuments()) === 0 ? true : undefined));
      await s.nats.flush();
      expect(events.filter((event) => (event['payload'] as Json)['membership_id'] === id)).toHaveLength(1);
    });
  });

  describe('GET /user/plans/history', () => {
    let a: Awaited<ReturnType<typeof arrange>>;
    beforeAll(async () => {
      a = await arrange();
      const put = await s.api(`/user/subscriptions/${a.memberships.digitalMonthly}`, {
        method: 'PUT',
        headers: headers(a.tenant, a.member.token),
        json: { autorenew: false },
      });
      expect(put.status).toBe(200);
      const del = await s.api(`/user/subscriptions/${a.memberships.printMonthly}`, {
        method: 'DELETE',
        headers: headers(a.tenant, a.member.token),
      });
      expect(del.status).toBe(200);
    });
    const history = (query = 'page=1') => s.api('/user/plans/history', { headers: headers(a.tenant, a.member.token), query });
    const actions = (body: Json) => (body['items'] as JsonList).map((item) => [item['action'], item['user_subscription_id']]);

    it("lists the member's changes newest first, paginated", async () => {
      const response = await history();
      expect(response.status).toBe(200);
      expect(actions(response.body)).toEqual([
        ['detached', a.memberships.printMonthly],
        ['renewal_changed', a.memberships.digitalMonthly],
        ['created', a.memberships.retiredYearly],
        ['created', a.memberships.printMonthly],
        ['created', a.memberships.digitalYearly],
        ['created', a.memberships.digitalMonthly],
      ]);
      expect((response.body['items'] as JsonList)[0]).toEqual({
        id: expect.any(Number),
        user_subscription_id: a.memberships.printMonthly,
        subscription_id: a.pricings.printMonthly.id,
        action: 'detached',
        created_at: anyIsoDate,
      });
      expect(response.body['paginator']).toEqual({ current_page: 1, page: 1, total_pages: 1, total_items: 6, limit: 10 });
      const page = await history('page=3&limit=2');
      expect(actions(page.body)).toEqual([
        ['created', a.memberships.digitalYearly],
        ['created', a.memberships.digitalMonthly],
      ]);
      expect(page.body['paginator']).toEqual({ current_page: 3, page: 3, total_pages: 3, total_items: 6, limit: 2 });
    });

    it('filters and sorts by the item fields', async () => {
      expect(actions((await history('filter[action]=DETACH')).body)).toEqual([['detached', a.memberships.printMonthly]]);
      const byMembership = await history(
        `filter[SubscriptionsHistory.user_subscription_id]=${a.memberships.digitalMonthly}&order=id&sort=ASC`,
      );
      expect(actions(byMembership.body)).toEqual([
        ['created', a.memberships.digitalMonthly],
        ['renewal_changed', a.memberships.digitalMonthly],
      ]);
      const json = encodeURIComponent(JSON.stringify({ subscription_id: [a.pricings.retiredYearly.id, a.pricings.newsMonthly.id] }));
      expect(actions((await history(`filter=${json}`)).body)).toEqual([['created', a.memberships.retiredYearly]]);
      const bad = await history('filter[secret]=1&order=nope');
      expect(bad.status).toBe(409);
      expect(bad.body['error_fields']).toEqual({ 'filter.secret': expect.any(String), order: expect.any(String) });
    });

    it("shows nothing of other members' changes", async () => {
      const response = await s.api('/user/plans/history', { headers: headers(a.tenant, a.other.token) });
      expect(actions(response.body)).toEqual([['created', a.othersMembership]]);
    });
  });
});
