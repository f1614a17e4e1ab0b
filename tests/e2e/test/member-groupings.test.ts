import type { Plan, Pricing } from '@masthead/proto/catalog';
import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { randomBytes, randomInt } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { catalogKit, publicPricing, type Json, type JsonList } from './catalog-support.js';
import { anyIsoDate, anyRequestId, useStack } from './support.js';

/** GET /user/teams/{team_id}/plans (document 1 F) and GET /user/resources/subscriptions (E). */
describe('member views across teams and resources', () => {
  const s = useStack();
  const kit = catalogKit(s);

  /** Teams are written by the community service's later operations; until then, its table. */
  const insertTeam = async (ownerId: number, active = true) => {
    const id = randomInt(100_000_000, 900_000_000);
    await s
      .db('community')
      .collection('teams')
      .insertOne({ _id: id as never, name: `Team ${id}`, owner_id: ownerId, active, member_limit: 0, created_at: new Date() });
    return id;
  };

  describe('GET /user/teams/{team_id}/plans', () => {
    let tenant: Tenant;
    let owner: { id: number; token: string };
    let outsider: { id: number; token: string };
    let teamId: number;
    let othersTeamId: number;
    const plans: Record<string, Plan> = {};
    const pricings: Record<string, Pricing> = {};

    beforeAll(async () => {
      tenant = await createTenant(s.stack);
      plans['team'] = await kit.plan(tenant, 'team', { title: 'Team', canOwnTeams: true });
      pricings['teamMonthly'] = await kit.pricing(plans['team'].id, 'Team monthly', { price: 4999 });
      const parent = { parentPlanId: plans['team'].id };
      // Seat plans of the team plan, oldest first.
      plans['seat'] = await kit.plan(tenant, 'seat', { ...parent, title: 'Seat', private: true });
      pricings['seatMonthly'] = await kit.pricing(plans['seat'].id, 'Seat monthly', { price: 0, usersLimit: 10, private: true });
      plans['seatPlus'] = await kit.plan(tenant, 'seat-plus', { ...parent, title: 'Seat plus', fullAccess: true });
      pricings['seatPlusMonthly'] = await kit.pricing(plans['seatPlus'].id, 'Seat plus monthly', { price: 500 });
      pricings['seatPlusYearly'] = await kit.pricing(plans['seatPlus'].id, 'Seat plus yearly', {
        price: 5000,
        usersLimit: 25,
        period: '1 year',
      });
      await kit.pricing(plans['seatPlus'].id, 'Seat plus retired', { active: false });
      // Not listed: an inactive child, a child that can own teams, children of an inactive team
      // plan and of a plan that cannot own teams.
      await kit.pricing((await kit.plan(tenant, 'seat-retired', { ...parent, active: false })).id, 'Retired seat');
      await kit.pricing((await kit.plan(tenant, 'seat-owner', { ...parent, canOwnTeams: true })).id, 'Owner seat');
      const oldTeam = await kit.plan(tenant, 'old-team', { canOwnTeams: true, active: false });
      await kit.pricing((await kit.plan(tenant, 'old-seat', { parentPlanId: oldTeam.id })).id, 'Old seat');
      const digital = await kit.plan(tenant, 'digital');
      await kit.pricing((await kit.plan(tenant, 'digital-addon', { parentPlanId: digital.id })).id, 'Addon');

      const ownerMember = await kit.signedInMember(tenant);
      owner = ownerMember;
      await kit.grant(tenant, owner.id, pricings['teamMonthly'].id);
      await kit.grant(tenant, owner.id, (await kit.pricing(oldTeam.id, 'Old team monthly')).id);
      await kit.grant(tenant, owner.id, (await kit.pricing(digital.id, 'Digital monthly')).id);
      outsider = await kit.signedInMember(tenant);
      teamId = await insertTeam(owner.id);
      othersTeamId = await insertTeam(outsider.id, false);
    });

    const teamPlans = (token: string, team: number | string, query = 'page=1') =>
      s.api(`/user/teams/${team}/plans`, { headers: { resource: tenant.publicKey, token }, query });
    const slugs = (body: Json) => (body['items'] as JsonList).map((item) => item['slug']);

    it('lists the active seat plans of the member’s team plans, newest first, pricings with users_limit', async () => {
      const response = await teamPlans(owner.token, teamId);
      expect(response.status).toBe(200);
      const seat = (key: string, plan: string, usersLimit: number | null) => ({
        ...publicPricing(pricings[key]!, plans[plan]!),
        users_limit: usersLimit,
      });
      expect(response.body).toEqual({
        items: [
          {
            id: plans['seatPlus']!.id,
            title: 'Seat plus',
            slug: 'seat-plus',
            active: true,
            private: false,
            subscriptions: [seat('seatPlusMonthly', 'seatPlus', null), seat('seatPlusYearly', 'seatPlus', 25)],
          },
          {
            id: plans['seat']!.id,
            title: 'Seat',
            slug: 'seat',
            active: true,
            private: true,
            subscriptions: [seat('seatMonthly', 'seat', 10)],
          },
        ],
        paginator: { current_page: 1, page: 1, total_pages: 1, total_items: 2, limit: 10 },
      });
    });

    it('is not restricted by the team: any existing team gives the same list', async () => {
      const response = await teamPlans(owner.token, othersTeamId);
      expect(response.status).toBe(200);
      expect(slugs(response.body)).toEqual(['seat-plus', 'seat']);
    });

    it('lists nothing for a member without a team plan', async () => {
      const response = await teamPlans(outsider.token, othersTeamId);
      expect(response.body).toEqual({ items: [], paginator: { current_page: 1, page: 1, total_pages: 0, total_items: 0, limit: 10 } });
    });

    it('counts a team plan membership whatever its state (no active filter, as for team eligibility)', async () => {
      const member = await kit.signedInMember(tenant);
      const membership = await kit.grant(tenant, member.id, pricings['teamMonthly']!.id);
      const detach = await s.api(`/user/subscriptions/${membership}`, {
        method: 'DELETE',
        headers: { resource: tenant.publicKey, token: member.token },
      });
      expect(detach.status).toBe(200);
      expect(slugs((await teamPlans(member.token, teamId)).body)).toEqual(['seat-plus', 'seat']);
    });

    it('filters and pages; order, by and sort are not read', async () => {
      expect(slugs((await teamPlans(owner.token, teamId, `filter[Plans.id]=${plans['seat']!.id}`)).body)).toEqual(['seat']);
      const json = encodeURIComponent(JSON.stringify({ 'Plans.title': 'PLUS' }));
      expect(slugs((await teamPlans(owner.token, teamId, `filter=${json}`)).body)).toEqual(['seat-plus']);
      const page = await teamPlans(owner.token, teamId, 'page=2&limit=1&order=Plans.title&sort=SIDEWAYS');
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({
        items: [{ slug: 'seat' }],
        paginator: { current_page: 2, page: 2, total_pages: 2, total_items: 2, limit: 1 },
      });
      const bad = await teamPlans(owner.token, teamId, 'filter[Plans.secret]=1&filter[Plans.id]=x');
      expect(bad.status).toBe(409);
      expect(bad.body).toEqual({
        error: true,
        error_fields: { 'filter.Plans.secret': expect.any(String), 'filter.Plans.id': expect.any(String) },
        req_guid: anyRequestId,
      });
    });

    it('answers 404 team_not_found for an unknown or malformed team ID', async () => {
      for (const team of [987_654_321, 0, 'abc', '1.5']) {
        const response = await teamPlans(owner.token, team);
        expect(response.status, String(team)).toBe(404);
        expect(response.body).toEqual({ error: 'team_not_found', error_description: 'Team not found', req_guid: anyRequestId });
      }
    });

    it('needs a member', async () => {
      const response = await s.api(`/user/teams/${teamId}/plans`, { headers: { resource: tenant.publicKey } });
      expect(response.status).toBe(401);
      expect(response.body['error']).toBe('auth_failed');
    });

    it('adds admin-only fields in admin context', async () => {
      const admin = await kit.signedInMember(tenant, 'admin');
      await kit.grant(tenant, admin.id, pricings['teamMonthly']!.id);
      const [first] = (await teamPlans(admin.token, teamId)).body['items'] as JsonList;
      expect(first).toMatchObject({ created_at: anyIsoDate, updated_at: anyIsoDate });
      expect((first!['subscriptions'] as JsonList)[0]).toMatchObject({ created_at: anyIsoDate, country_vat: null, users_limit: null });
    });
  });

  describe('GET /user/resources/subscriptions', () => {
    /** Another resource of the tenant's partner. */
    const sibling = async (tenant: Tenant, title: string): Promise<Tenant> => {
      const key = `res-${randomBytes(4).toString('hex')}`;
      const resource = await s.stack.operator.accounts.upsertResource({
        publicKey: key,
        title,
        host: `${key}.example.test`,
        partnerId: tenant.partnerId,
        settings: {},
        allowedOrigins: [],
      });
      return { resourceId: resource.id, publicKey: key, partnerId: tenant.partnerId };
    };

    let selected: Tenant;
    let member: { id: number; email: string; password: string; token: string };
    let second: Tenant;
    let locked: Tenant;
    const memberships: Record<string, { id: number; pricing: Pricing; plan: Plan }> = {};

    beforeAll(async () => {
      selected = await createTenant(s.stack);
      second = await sibling(selected, 'Second title');
      locked = await sibling(selected, 'Locked title');
      const unrelated = await sibling(selected, 'Unrelated');
      const inactive = await sibling(selected, 'Inactive');
      const removed = await sibling(selected, 'Removed');
      const otherPartner = await createTenant(s.stack);

      member = await kit.signedInMember(selected);
      const credentials = { email: member.email, password: member.password };
      for (const tenant of [second, locked, inactive, removed, otherPartner]) await createMember(s.stack, tenant, credentials);
      const identity = s.db('identity').collection('relationships');
      await identity.updateOne({ _id: `${locked.resourceId}:${member.id}` as never }, { $set: { status: 'locked' } });
      await identity.updateOne({ _id: `${removed.resourceId}:${member.id}` as never }, { $set: { status: 'removed' } });
      await s
        .db('accounts')
        .collection('resources')
        .updateOne({ _id: inactive.resourceId as never }, { $set: { active: false } });

      const give = async (tenant: Tenant, key: string, autorenew = false) => {
        const plan = await kit.plan(tenant, key, { title: `Plan ${key}` });
        const pricing = await kit.pricing(plan.id, `Pricing ${key}`);
        memberships[key] = { id: await kit.grant(tenant, member.id, pricing.id, autorenew), pricing, plan };
      };
      await give(selected, 'selected', true);
      await give(second, 'second-a');
      await give(second, 'second-b');
      await give(second, 'second-detached');
      // Memberships where the member has no relationship, or in excluded resources, never show.
      await give(unrelated, 'unrelated');
      await give(inactive, 'inactive');
      await give(removed, 'removed');
      await give(otherPartner, 'other-partner');
      const detach = await s.api(`/user/subscriptions/${memberships['second-detached']!.id}`, {
        method: 'DELETE',
        headers: { resource: second.publicKey, token: await kit.signIn(second, credentials) },
      });
      expect(detach.status).toBe(200);
    });

    const grouped = (query = 'page=1', token = member.token, resource = selected.publicKey) =>
      s.api('/user/resources/subscriptions', { headers: { resource, token }, query });
    const membershipJson = (key: string, autorenew = false) => {
      const { id, pricing, plan } = memberships[key]!;
      return {
        ...publicPricing(pricing, plan),
        user_subscription_id: id,
        subscription_end_date: anyIsoDate,
        autorenew,
        is_team_subscription: false,
      };
    };
    /** The resource list item's fields, as createTenant and `sibling` name them. */
    const resourceJson = (tenant: Tenant, title: string, subscriptions: Json[]) => ({
      title,
      key: tenant.publicKey,
      host: tenant === selected ? `${tenant.publicKey.slice('res-'.length)}.example.test` : `${tenant.publicKey}.example.test`,
      subscriptions,
    });

    it("groups the member's active memberships by the partner's active, related resources", async () => {
      const response = await grouped();
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        items: [
          {
            resources: [
              resourceJson(selected, `Resource ${selected.publicKey.slice('res-'.length)}`, [membershipJson('selected', true)]),
              // Newest membership first; the detached one is not shown.
              resourceJson(second, 'Second title', [membershipJson('second-b'), membershipJson('second-a')]),
              // A locked relationship is still a relationship; it has no memberships here.
              resourceJson(locked, 'Locked title', []),
            ],
          },
        ],
        paginator: { current_page: 1, page: 1, total_pages: 1, total_items: 3, limit: 10 },
      });
    });

    it('pages the resources, not the memberships; an empty page is exactly {items: [{resources: []}]}', async () => {
      const page = await grouped('page=2&limit=2');
      expect(page.body).toEqual({
        items: [{ resources: [expect.objectContaining({ key: locked.publicKey, subscriptions: [] })] }],
        paginator: { current_page: 2, page: 2, total_pages: 2, total_items: 3, limit: 2 },
      });
      const first = await grouped('page=1&limit=2');
      const resources = (first.body['items'] as JsonList)[0]!['resources'] as JsonList;
      expect(resources.map((resource) => resource['key'])).toEqual([selected.publicKey, second.publicKey]);
      expect(resources[1]!['subscriptions']).toHaveLength(2);
      const beyond = await grouped('page=3&limit=2');
      expect(beyond.status).toBe(200);
      expect(beyond.text).toBe('{"items":[{"resources":[]}]}');
    });

    it('validates filter without applying it, and reads no order or sort', async () => {
      const all = await grouped();
      const filtered = await grouped(`filter[key]=${second.publicKey}&sort=SIDEWAYS&order=nope`);
      expect(filtered.status).toBe(200);
      expect(filtered.body).toEqual(all.body);
      const json = await grouped(`filter=${encodeURIComponent(JSON.stringify({ title: 'x' }))}`);
      expect(json.body).toEqual(all.body);
      for (const query of ['filter=%7Bbroken', 'filter=%5B1%5D', 'filter[title][deep]=1', 'page=0', 'limit=-3']) {
        const response = await grouped(query);
        expect(response.status, query).toBe(409);
        expect(response.body).toEqual({ error: true, error_fields: expect.any(Object), req_guid: anyRequestId });
      }
    });

    it('answers exactly {items: [{resources: []}]} when the partner is inactive', async () => {
      const tenant = await createTenant(s.stack);
      const lonely = await kit.signedInMember(tenant);
      await s
        .db('accounts')
        .collection('partners')
        .updateOne({ _id: tenant.partnerId as never }, { $set: { active: false } });
      const response = await grouped('page=1', lonely.token, tenant.publicKey);
      expect(response.status).toBe(200);
      expect(response.text).toBe('{"items":[{"resources":[]}]}');
    });

    it('needs a member', async () => {
      const response = await s.api('/user/resources/subscriptions', { headers: { resource: selected.publicKey } });
      expect(response.status).toBe(401);
      expect(response.body['error']).toBe('auth_failed');
    });
  });
});
