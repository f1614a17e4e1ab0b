import { createServiceClient } from '@masthead/core/grpc';
import type { Pricing } from '@masthead/proto/catalog';
import { InvitationsServiceService } from '@masthead/proto/community/invitations';
import { TeamsServiceService } from '@masthead/proto/community/teams';
import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogKit, publicPricing, type Json } from './catalog-support.js';
import { anyIsoDate, anyRequestId, useStack } from './support.js';

/**
 * Invitations (document 2 D) through the gateway: POST /invite-validation and POST
 * /invite-activation, against community, catalog and identity on FerretDB and NATS.
 */
describe('invitations', () => {
  // Cheap hashes: the race tests sign in 50 members.
  // The races below judge exactness, not speed: on a loaded 2-core machine (CI saw a load of 24)
  // 50 parallel team activations outlasted even a 20 s request budget, and a 504 is no verdict on
  // a seat.
  const s = useStack({ env: { ARGON2_MEMORY_KIB: '8192', ARGON2_ITERATIONS: '1', GRPC_DEADLINE_MS: '60000' } });
  const kit = catalogKit(s);
  // Operator and team-owner calls no route of this branch makes (codes: the admin CLI's RPC).
  let operator: {
    invitations: ReturnType<typeof createServiceClient<typeof InvitationsServiceService>>;
    teams: ReturnType<typeof createServiceClient<typeof TeamsServiceService>>;
  };
  beforeAll(() => {
    const address = s.stack.env['COMMUNITY_ADDR']!;
    operator = {
      invitations: createServiceClient(InvitationsServiceService, address, { defaultDeadlineMs: 10_000 }),
      teams: createServiceClient(TeamsServiceService, address, { defaultDeadlineMs: 10_000 }),
    };
  });
  afterAll(() => {
    operator?.invitations.close();
    operator?.teams.close();
  });

  const community = () => s.db('community');
  const errorBody = (code: string) => ({ error: code, error_description: expect.any(String), req_guid: anyRequestId });

  /** A resource with a free plan and Pricing, a paid Pricing, and a team plan with seats. */
  async function arrange(settings: Record<string, unknown> = {}) {
    const tenant = await createTenant(s.stack, { settings });
    const plan = await kit.plan(tenant, 'news', { title: 'News' });
    const free = await kit.pricing(plan.id, 'News free', { price: 0 });
    const paid = await kit.pricing(plan.id, 'News paid', { price: 1500 });
    const teamPlan = await kit.plan(tenant, 'team', { title: 'Team', canOwnTeams: true });
    const teamPricing = await kit.pricing(teamPlan.id, 'Team yearly', { price: 0, period: '1 year' });
    const seatPlan = await kit.plan(tenant, 'seat', { title: 'Seat', private: true, parentPlanId: teamPlan.id });
    const seat = await kit.pricing(seatPlan.id, 'Seat', { price: 0, private: true });
    const paidSeat = await kit.pricing(seatPlan.id, 'Paid seat', { price: 900, private: true });
    return { tenant, plan, free, paid, teamPlan, teamPricing, seatPlan, seat, paidSeat };
  }
  type Arranged = Awaited<ReturnType<typeof arrange>>;

  const createCode = (tenant: Tenant, pricingId: number, fields: { code?: string; activationsLimit?: number; email?: string } = {}) =>
    operator.invitations.createInvitationCode({
      resourceId: tenant.resourceId,
      pricingId,
      code: fields.code ?? '',
      activationsLimit: fields.activationsLimit ?? 0,
      email: fields.email ?? '',
      title: '',
      description: '',
    });

  /** A team owned by a fresh member with the team Pricing, and its (capped) member limit. */
  async function teamOf(a: Arranged, memberLimit = 0, allowedDomains: string[] = []) {
    const owner = await createMember(s.stack, a.tenant);
    await kit.grant(a.tenant, owner.id, a.teamPricing.id);
    const caller = { resourceId: a.tenant.resourceId, userId: owner.id, email: owner.email, role: 'user' };
    const team = await operator.teams.createTeam({ caller, name: 'Crew', autoAllowedDomains: false });
    await community()
      .collection('teams')
      .updateOne({ _id: team.id as never }, { $set: { member_limit: memberLimit, allowed_domains: allowedDomains } });
    return { owner, caller, teamId: team.id };
  }

  /** A team invitation code without an email, open to anyone (the state a team owner's import leaves). */
  async function teamCode(a: Arranged, teamId: number, pricingId: number, code: string) {
    const id = Math.floor(Math.random() * 1e9);
    await community()
      .collection('invites')
      .insertOne({
        _id: id as never,
        resource_id: a.tenant.resourceId,
        code,
        code_key: code.toLowerCase(),
        dedupe_key: `code:${a.tenant.resourceId}:${code.toLowerCase()}`,
        email: null,
        user_name: null,
        title: 'Join the crew',
        description: '',
        team_id: teamId,
        pricing_id: pricingId,
        activations_limit: 0,
        start_date: null,
        end_date: null,
        created_by: null,
        created_at: new Date(),
      });
    return id;
  }

  /** A JSON body, or form fields (`Record<string, string>` under `form`). */
  type Body = Json | { form: Record<string, string> };
  const bodyOf = (body: Body) => ('form' in body ? { form: body.form as Record<string, string> } : { json: body });
  const validate = (tenant: Tenant | string, body: Body, headers: Record<string, string> = {}) =>
    s.api('/invite-validation', {
      method: 'POST',
      headers: { resource: typeof tenant === 'string' ? tenant : tenant.publicKey, ...headers },
      ...bodyOf(body),
    });
  const activate = (headers: Record<string, string>, body: Body) =>
    s.api('/invite-activation', { method: 'POST', headers, ...bodyOf(body) });
  const memberHeaders = async (tenant: Tenant) => {
    const member = await kit.signedInMember(tenant);
    return { member, headers: { resource: tenant.publicKey, token: member.token } };
  };
  const activeMemberships = (tenant: Tenant, userId: number) =>
    s.db('catalog').collection('memberships').find({ resource_id: tenant.resourceId, user_id: userId, active: true }).toArray();

  describe('POST /invite-validation', () => {
    it('previews a code case-insensitively: public invite, public Pricing, no team or ticket', async () => {
      const a = await arrange();
      const created = await createCode(a.tenant, a.free.id, { code: 'Spring-Free-2030' });
      const response = await validate(a.tenant, { invite: '  spring-free-2030 ' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        result: true,
        email: null,
        invite: { title: 'News free', description: '', code: 'Spring-Free-2030', start_date: null, end_date: null },
        subscription: publicPricing(a.free, a.plan),
        ticket: null,
        team: null,
      });
      expect(created?.['code']).toBe('Spring-Free-2030');
    });

    it('takes the session email as fallback, form fields without JSON, and adds `data` with return_invite', async () => {
      const a = await arrange();
      const { member, headers } = await memberHeaders(a.tenant);
      await createCode(a.tenant, a.free.id, { code: 'bound-code-0001', email: member.email.toUpperCase() });
      const withSession = await validate(a.tenant, { invite: 'bound-code-0001' }, { token: headers.token });
      expect(withSession.status).toBe(200);
      expect(withSession.body['email']).toBe(member.email);
      // The body email wins over the session's: another email does not match the bound one.
      const other = await validate(a.tenant, { invite: 'bound-code-0001', email: 'Someone@Else.test' }, { token: headers.token });
      expect(other.status).toBe(409);
      expect(other.body).toEqual(errorBody('invalid_invite'));

      const form = await validate(a.tenant, { form: { invite: 'BOUND-CODE-0001', email: member.email, return_invite: '1' } });
      expect(form.status).toBe(200);
      expect(form.body['data']).toEqual({
        id: expect.any(Number),
        email: member.email,
        user_name: null,
        title: 'News free',
        description: '',
        code: 'bound-code-0001',
        activations_limit: 0,
        team_id: null,
        subscription_id: a.free.id,
        start_date: null,
        end_date: null,
        is_user_exist: true,
      });
      const stranger = await createCode(a.tenant, a.free.id, { email: 'nobody-yet@example.test' });
      const preview = await validate(a.tenant, { invite: stranger?.['code'], return_invite: true });
      expect((preview.body['data'] as Json)['is_user_exist']).toBe(false);
      expect(await validate(a.tenant, { invite: stranger?.['code'] })).toMatchObject({ status: 200 });
      expect((await validate(a.tenant, { invite: stranger?.['code'] })).body['data']).toBeUndefined();
    });

    it('shows a team invite with its team and the team Pricing', async () => {
      const a = await arrange();
      const { teamId } = await teamOf(a);
      await teamCode(a, teamId, a.seat.id, 'crew-code-0001');
      const response = await validate(a.tenant, { invite: 'CREW-code-0001' });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        subscription: null,
        ticket: null,
        team: { id: teamId, name: 'Crew', subscription: publicPricing(a.seat, a.seatPlan) },
      });
    });

    it('409 invalid_invite for unknown, missing, expired, not yet open and used-up codes; 404 for an unknown resource', async () => {
      const a = await arrange();
      for (const body of [{ invite: 'no-such-code-01' }, {}, { invite: 42 }, { invite: 'x'.repeat(5000) }]) {
        const response = await validate(a.tenant, body);
        expect(response.status).toBe(409);
        expect(response.body).toEqual(errorBody('invalid_invite'));
      }
      const windowed = await createCode(a.tenant, a.free.id, { code: 'window-code-01' });
      const setWindow = (start: Date | null, end: Date | null) =>
        community()
          .collection('invites')
          .updateOne({ _id: windowed?.['id'] as never }, { $set: { start_date: start, end_date: end } });
      await setWindow(null, new Date(Date.now() - 1000));
      expect((await validate(a.tenant, { invite: 'window-code-01' })).status).toBe(409);
      await setWindow(new Date(Date.now() + 3_600_000), null);
      expect((await validate(a.tenant, { invite: 'window-code-01' })).status).toBe(409);
      await setWindow(new Date(Date.now() - 3_600_000), new Date(Date.now() + 3_600_000));
      const open = await validate(a.tenant, { invite: 'window-code-01' });
      expect(open.status).toBe(200);
      expect((open.body['invite'] as Json)['end_date']).toEqual(anyIsoDate);

      await createCode(a.tenant, a.free.id, { code: 'single-use-01', activationsLimit: 1 });
      const { headers } = await memberHeaders(a.tenant);
      expect((await activate(headers, { invite: 'single-use-01' })).status).toBe(200);
      expect((await validate(a.tenant, { invite: 'single-use-01' })).body).toEqual(errorBody('invalid_invite'));

      const unknownResource = await validate('no-such-resource', { invite: 'single-use-01' });
      expect(unknownResource.status).toBe(404);
      expect(unknownResource.body).toEqual(errorBody('resource_not_exists'));
    });

    it('406 incorrect_invite when the final lookup finds no team behind the invite', async () => {
      const a = await arrange();
      const { teamId } = await teamOf(a);
      await teamCode(a, teamId, a.seat.id, 'orphan-code-01');
      await community()
        .collection('teams')
        .deleteOne({ _id: teamId as never });
      const response = await validate(a.tenant, { invite: 'orphan-code-01' });
      expect(response.status).toBe(406);
      expect(response.body).toEqual(errorBody('incorrect_invite'));
    });

    it('406 requests_limit_exceeded after 50 previews per resource and address, counting failures too', async () => {
      const a = await arrange();
      const other = await arrange();
      await createCode(a.tenant, a.free.id, { code: 'flood-code-01' });
      for (let batch = 0; batch < 5; batch++) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) => validate(a.tenant, { invite: i % 2 ? 'flood-code-01' : 'nope-nope-01' })),
        );
        expect(answers.every((answer) => answer.status !== 406)).toBe(true);
      }
      const over = await validate(a.tenant, { invite: 'flood-code-01' });
      expect(over.status).toBe(406);
      expect(over.body).toEqual(errorBody('requests_limit_exceeded'));
      // Another resource has its own counter.
      expect((await validate(other.tenant, { invite: 'nope-nope-01' })).status).toBe(409);
    });
  });

  describe('POST /invite-activation', () => {
    it('activates a free code: the membership through catalog, subscription_id, reuse only within 12 hours', async () => {
      const a = await arrange();
      const { member, headers } = await memberHeaders(a.tenant);
      const code = await createCode(a.tenant, a.free.id, { activationsLimit: 5 });
      const response = await activate(headers, { invite: String(code?.['code']).toUpperCase() });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ result: true, subscription_id: a.free.id });
      expect(await activeMemberships(a.tenant, member.id)).toEqual([expect.objectContaining({ pricing_id: a.free.id })]);
      const plans = await s.api('/user/plans', { headers });
      expect((plans.body['items'] as Json[]).map((plan) => plan['id'])).toEqual([a.plan.id]);

      // Again within 12 hours: allowed, nothing new; once the activation is 12 hours old: refused.
      expect((await activate(headers, { invite: code?.['code'] })).body).toEqual({ result: true, subscription_id: a.free.id });
      expect(await activeMemberships(a.tenant, member.id)).toHaveLength(1);
      await community()
        .collection('invite_activations')
        .updateOne({ invite_id: code?.['id'], user_id: member.id }, { $set: { created_at: new Date(Date.now() - 12 * 3_600_000) } });
      const late = await activate(headers, { form: { invite: String(code?.['code']) } });
      expect(late.status).toBe(422);
      expect(late.body).toEqual(errorBody('invalid_invite'));
    });

    it('activates a team invite: an active `user` relationship and the seat membership, subscription_id null, no reuse', async () => {
      const a = await arrange();
      const { teamId } = await teamOf(a);
      await teamCode(a, teamId, a.seat.id, 'crew-join-0001');
      const { member, headers } = await memberHeaders(a.tenant);
      const response = await activate(headers, { invite: 'crew-join-0001' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ result: true, subscription_id: null });
      expect(await community().collection('team_members').findOne({ team_id: teamId, user_id: member.id })).toMatchObject({
        role: 'user',
        status: 'active',
        pricing_id: a.seat.id,
      });
      expect(await activeMemberships(a.tenant, member.id)).toEqual([expect.objectContaining({ pricing_id: a.seat.id })]);
      expect((await activate(headers, { invite: 'crew-join-0001' })).body).toEqual(errorBody('invalid_invite'));
    });

    it('a paid Pricing of a non-team code answers its subscription_id without granting it', async () => {
      const a = await arrange();
      // The CLI refuses paid Pricings; such a code can only come from stored data.
      expect(await createCode(a.tenant, a.paid.id).catch((error: { code: string }) => error.code)).toBe('invalid_subscription_id');
      const code = await createCode(a.tenant, a.free.id, { code: 'paid-later-01' });
      await community()
        .collection('invites')
        .updateOne({ _id: code?.['id'] as never }, { $set: { pricing_id: a.paid.id } });
      const { member, headers } = await memberHeaders(a.tenant);
      expect((await activate(headers, { invite: 'paid-later-01' })).body).toEqual({ result: true, subscription_id: a.paid.id });
      expect(await activeMemberships(a.tenant, member.id)).toEqual([]);
    });

    it('replaces same-plan memberships, and with single_subscription every other membership of the resource', async () => {
      for (const single of [false, true]) {
        const a = await arrange(single ? { single_subscription: true } : {});
        const { member, headers } = await memberHeaders(a.tenant);
        await kit.grant(a.tenant, member.id, a.paid.id);
        const otherPlan = await kit.plan(a.tenant, 'print', { title: 'Print' });
        const print = await kit.pricing(otherPlan.id, 'Print', { price: 700 });
        await kit.grant(a.tenant, member.id, print.id);
        await createCode(a.tenant, a.free.id, { code: 'switch-code-01' });
        expect((await activate(headers, { invite: 'switch-code-01' })).status).toBe(200);
        const kept = (await activeMemberships(a.tenant, member.id)).map((row) => row['pricing_id'] as number).sort();
        expect(kept).toEqual(single ? [a.free.id] : [a.free.id, print.id].sort());
      }
    });

    it('answers every documented error', async () => {
      const a = await arrange();
      const { member, headers } = await memberHeaders(a.tenant);
      const expectError = async (body: Json, status: number, code: string, using: Record<string, string> = headers) => {
        const response = await activate(using, body);
        expect({ status: response.status, body: response.body }).toEqual({ status, body: errorBody(code) });
      };
      await createCode(a.tenant, a.free.id, { code: 'errors-code-01' });
      // 401 without a session; 404 for an unknown resource.
      await expectError({ invite: 'errors-code-01' }, 401, 'auth_failed', { resource: a.tenant.publicKey });
      await expectError({ invite: 'errors-code-01' }, 404, 'resource_not_exists', { resource: 'no-such-resource', token: headers.token });
      // 422 invalid_invite: unknown, missing, bound to another email, outside its window.
      await expectError({ invite: 'unknown-code-01' }, 422, 'invalid_invite');
      await expectError({}, 422, 'invalid_invite');
      await createCode(a.tenant, a.free.id, { code: 'bound-other-01', email: 'other@example.test' });
      await expectError({ invite: 'bound-other-01' }, 422, 'invalid_invite');
      const expired = await createCode(a.tenant, a.free.id, { code: 'expired-code-1' });
      await community()
        .collection('invites')
        .updateOne({ _id: expired?.['id'] as never }, { $set: { end_date: new Date(Date.now() - 1000) } });
      await expectError({ invite: 'expired-code-1' }, 422, 'invalid_invite');
      // 406 incorrect_subscription: the code's Pricing is no longer active.
      const retired = await kit.pricing(a.plan.id, 'Retired free', { price: 0 });
      await createCode(a.tenant, retired.id, { code: 'retired-code-1' });
      await kit.pricing(a.plan.id, 'Retired free', { price: 0, active: false });
      await expectError({ invite: 'retired-code-1' }, 406, 'incorrect_subscription');
      // 406 team_invitation_fail: a full team (the owner holds its one seat), a domain outside the team's.
      const full = await teamOf(a, 1);
      await teamCode(a, full.teamId, a.seat.id, 'full-team-0001');
      await expectError({ invite: 'full-team-0001' }, 406, 'team_invitation_fail');
      const domains = await teamOf(a, 0, ['publisher.test']);
      await teamCode(a, domains.teamId, a.seat.id, 'domain-team-01');
      await expectError({ invite: 'domain-team-01' }, 406, 'team_invitation_fail');
      // 406 team_payment_fail: a paid seat and no payment customer on the owner.
      const paying = await teamOf(a);
      await teamCode(a, paying.teamId, a.paidSeat.id, 'paid-team-0001');
      await expectError({ invite: 'paid-team-0001' }, 406, 'team_payment_fail');
      // Nothing was granted or joined on the way.
      expect(await activeMemberships(a.tenant, member.id)).toEqual([]);
      expect(await community().collection('team_members').countDocuments({ user_id: member.id })).toBe(0);
    });
  });

  describe('resources are isolated', () => {
    it("a code or team invite of resource B is neither previewed nor activated from resource A; B's records stay unchanged", async () => {
      const [a, b] = [await arrange(), await arrange()];
      const code = await createCode(b.tenant, b.free.id, { code: 'only-in-b-001' });
      const { teamId } = await teamOf(b);
      await teamCode(b, teamId, b.seat.id, 'team-in-b-001');
      const before = await community().collection('invites').find({ resource_id: b.tenant.resourceId }).sort({ _id: 1 }).toArray();
      const { member, headers } = await memberHeaders(a.tenant);
      for (const invite of ['only-in-b-001', 'ONLY-IN-B-001', 'team-in-b-001']) {
        expect((await validate(a.tenant, { invite, return_invite: true })).body).toEqual(errorBody('invalid_invite'));
        expect((await activate(headers, { invite })).body).toEqual(errorBody('invalid_invite'));
      }
      // A's session is not a key to B either (sessions are bound to their resource).
      expect((await activate({ resource: b.tenant.publicKey, token: headers.token }, { invite: 'only-in-b-001' })).status).toBe(401);
      expect(await community().collection('invites').find({ resource_id: b.tenant.resourceId }).sort({ _id: 1 }).toArray()).toEqual(before);
      expect(await community().collection('invite_activations').countDocuments({ invite_id: code?.['id'] })).toBe(0);
      expect(await community().collection('team_members').countDocuments({ team_id: teamId })).toBe(1);
      expect(await activeMemberships(b.tenant, member.id)).toEqual([]);
      expect(await activeMemberships(a.tenant, member.id)).toEqual([]);
    });
  });

  describe('no seat or slot is given twice', () => {
    /** 50 members of the tenant, signed in (a few at a time: the hashes queue). */
    async function members(tenant: Tenant, count: number) {
      const signedIn: Array<{ id: number; headers: Record<string, string> }> = [];
      for (let i = 0; i < count; i += 5) {
        const batch = await Promise.all(Array.from({ length: Math.min(5, count - i) }, () => memberHeaders(tenant)));
        signedIn.push(...batch.map(({ member, headers }) => ({ id: member.id, headers })));
      }
      return signedIn;
    }
    const grantedTo = async (tenant: Tenant, pricing: Pricing, ids: number[]) =>
      s
        .db('catalog')
        .collection('memberships')
        .countDocuments({ resource_id: tenant.resourceId, pricing_id: pricing.id, user_id: { $in: ids }, active: true });

    it.each([1, 2, 3])(
      '50 parallel activations of one code capped at 10 give exactly 10 memberships (run %i)',
      async () => {
        const a = await arrange();
        const callers = await members(a.tenant, 50);
        const code = await createCode(a.tenant, a.free.id, { activationsLimit: 10 });
        const answers = await Promise.all(callers.map(({ headers }) => activate(headers, { invite: code?.['code'] })));
        expect(answers.filter((answer) => answer.status === 200)).toHaveLength(10);
        for (const answer of answers.filter((one) => one.status !== 200)) expect(answer.body).toEqual(errorBody('invalid_invite'));
        expect(
          await grantedTo(
            a.tenant,
            a.free,
            callers.map((caller) => caller.id),
          ),
        ).toBe(10);
        expect(await community().collection('invite_activations').countDocuments({ invite_id: code?.['id'] })).toBe(10);
      },
      120_000,
    );

    it.each([1, 2, 3])(
      '50 parallel activations for a team with 10 free seats give exactly 10 memberships (run %i)',
      async () => {
        const a = await arrange();
        // 11 seats: the owner's relationship holds one (document 2 D counts every relationship).
        const { teamId } = await teamOf(a, 11);
        await teamCode(a, teamId, a.seat.id, `race-team-${a.tenant.resourceId}`);
        const callers = await members(a.tenant, 50);
        const answers = await Promise.all(callers.map(({ headers }) => activate(headers, { invite: `race-team-${a.tenant.resourceId}` })));
        // Every answer's status and code first, so that a failure shows what the losers got.
        const outcomes = answers.map((answer) => `${answer.status} ${String(answer.body['error'] ?? '')}`.trim()).sort();
        expect(outcomes).toEqual([...Array(10).fill('200'), ...Array(40).fill('406 team_invitation_fail')].sort());
        for (const answer of answers.filter((one) => one.status !== 200)) expect(answer.body).toEqual(errorBody('team_invitation_fail'));
        expect(
          await grantedTo(
            a.tenant,
            a.seat,
            callers.map((caller) => caller.id),
          ),
        ).toBe(10);
        expect(await community().collection('team_members').countDocuments({ team_id: teamId })).toBe(11);
      },
      120_000,
    );
  });
});
