import type { Pricing } from '@masthead/proto/catalog';
import { createTenant, type Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { catalogKit, type Json } from './catalog-support.js';
import { anyRequestId, useStack } from './support.js';
import { ticketingKit } from './ti-events-support.js';

/**
 * Every cap holds at the step that grants access, not only where access is promised
 * (docs/adr/0233): N members activating at once over a cap of K get exactly K grants and K
 * memberships, through the gateway, for each capped thing a member activates — a team Pricing's
 * `users_limit` (on a team created over HTTP, whose `member_limit` stays 0), an invitation
 * code's `activations_limit` and a sponsorship slot's seats. (Tickets and promo uses are claimed
 * at checkout before the charge: checkout-tickets.test.ts and checkout.test.ts race them.)
 */
describe('caps hold where access is granted', { timeout: 240_000 }, () => {
  // Cheap hashes: the races sign in many members. Generous internal deadlines: on a loaded
  // machine a 504 is no verdict on a seat.
  const s = useStack({ env: { ARGON2_MEMORY_KIB: '8192', ARGON2_ITERATIONS: '1', GRPC_DEADLINE_MS: '60000' } });
  const kit = catalogKit(s);
  const community = ticketingKit(s).community;
  const errorBody = (code: string) => ({ error: code, error_description: expect.any(String), req_guid: anyRequestId });

  type Member = { id: number; email: string; headers: Record<string, string> };
  /** `count` signed-in members of the tenant (a few at a time: the hashes queue). */
  async function members(tenant: Tenant, count: number): Promise<Member[]> {
    const signedIn: Member[] = [];
    for (let i = 0; i < count; i += 5) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(5, count - i) }, async () => {
          const member = await kit.signedInMember(tenant);
          return { id: member.id, email: member.email, headers: { resource: tenant.publicKey, token: member.token } };
        }),
      );
      signedIn.push(...batch);
    }
    return signedIn;
  }
  const call = (who: Pick<Member, 'headers'>, method: string, path: string, json?: Json) =>
    s.api(path, { method, headers: who.headers, json });
  /** Every answer's status and code, sorted: a failure shows what the losers got. */
  const outcomes = (answers: Array<{ status: number; body: Json }>) =>
    answers.map((answer) => `${answer.status} ${String(answer.body['error'] ?? '')}`.trim()).sort();
  const expected = (granted: number, refused: number, refusal: string) =>
    [...Array(granted).fill('200'), ...Array(refused).fill(refusal)].sort();
  /** Active memberships of the Pricing among the members. */
  const granted = (tenant: Tenant, pricing: Pricing, ids: number[]) =>
    s
      .db('catalog')
      .collection('memberships')
      .countDocuments({ resource_id: tenant.resourceId, pricing_id: pricing.id, user_id: { $in: ids }, active: true });

  /** A resource with a team plan (its Pricing of `teamSize` users, 0 = none) and a seat plan (its Pricing of `seats`). */
  async function teamShop(teamSize: number, seats: number) {
    const tenant = await createTenant(s.stack);
    const teamPlan = await kit.plan(tenant, 'team', { title: 'Team', canOwnTeams: true });
    const teamPricing = await kit.pricing(teamPlan.id, 'Team', {
      price: 0,
      period: '1 year',
      ...(teamSize ? { usersLimit: teamSize } : {}),
    });
    const seatPlan = await kit.plan(tenant, 'seat', { title: 'Seat', private: true, parentPlanId: teamPlan.id });
    const seat = await kit.pricing(seatPlan.id, 'Seat', { price: 0, private: true, ...(seats ? { usersLimit: seats } : {}) });
    const [owner] = await members(tenant, 1);
    await kit.grant(tenant, owner!.id, teamPricing.id);
    const created = await call(owner!, 'POST', '/user/teams', { name: 'Crew' });
    expect(created.status).toBe(200);
    return { tenant, seat, owner: owner!, team: created.body };
  }

  it('50 invites of a team Pricing with users_limit 10, activated at once, give 10 seats and 10 memberships', async () => {
    const { tenant, seat, owner, team } = await teamShop(0, 10);
    const teamId = team['id'] as number;
    const invitees = await members(tenant, 50);
    // Promised: no seat is taken yet, so every invite is accepted (document 2 C counts active relationships).
    const codes: string[] = [];
    for (const invitee of invitees) {
      const invite = await call(owner, 'POST', `/user/teams/${teamId}/invites`, { email: invitee.email, subscription_id: seat.id });
      expect(invite.status).toBe(201);
      codes.push(invite.body['code'] as string);
    }
    // Granted: at activation, where the seat is claimed.
    const answers = await Promise.all(
      invitees.map((invitee, index) => call(invitee, 'POST', '/invite-activation', { invite: codes[index] })),
    );
    expect(outcomes(answers)).toEqual(expected(10, 40, '406 team_invitation_fail'));
    for (const answer of answers.filter((one) => one.status !== 200)) expect(answer.body).toEqual(errorBody('team_invitation_fail'));
    const ids = invitees.map((invitee) => invitee.id);
    expect(await granted(tenant, seat, ids)).toBe(10);
    const community = s.db('community');
    expect(await community.collection('team_pricing_seats').countDocuments({ team_id: teamId, pricing_id: seat.id })).toBe(10);
    // The owner's relationship and the ten members': no relationship of a refused activation is left.
    expect(await community.collection('team_members').countDocuments({ team_id: teamId })).toBe(11);
    const listed = await call(owner, 'GET', '/user/teams');
    expect((listed.body['items'] as Json[])[0]).toMatchObject({ id: teamId, users_count: 11 });
  });

  it('a team created over HTTP keeps member_limit 0 (document 2); its seat Pricing’s users_limit holds 20 parallel activations of an open code', async () => {
    const { tenant, seat, team } = await teamShop(0, 5);
    expect(team).toMatchObject({ member_limit: 0 });
    const teamId = team['id'] as number;
    const code = `open-team-${tenant.resourceId}`;
    await s
      .db('community')
      .collection('invites')
      .insertOne({
        // Far above the counter's IDs (an invite an owner's import left; no route makes open team codes).
        _id: (1e9 + tenant.resourceId) as never,
        resource_id: tenant.resourceId,
        code,
        code_key: code,
        dedupe_key: `code:${tenant.resourceId}:${code}`,
        email: null,
        user_name: null,
        title: 'Join the crew',
        description: '',
        team_id: teamId,
        pricing_id: seat.id,
        activations_limit: 0,
        start_date: null,
        end_date: null,
        created_by: null,
        created_at: new Date(),
      });
    const joiners = await members(tenant, 20);
    const answers = await Promise.all(joiners.map((joiner) => call(joiner, 'POST', '/invite-activation', { invite: code })));
    // The Pricing's five seats; the owner's relationship holds none of them (it is on no Pricing).
    expect(outcomes(answers)).toEqual(expected(5, 15, '406 team_invitation_fail'));
    expect(
      await granted(
        tenant,
        seat,
        joiners.map((joiner) => joiner.id),
      ),
    ).toBe(5);
    expect(await s.db('community').collection('team_members').countDocuments({ team_id: teamId })).toBe(6);
  });

  it('20 parallel activations of a code capped at 5 give 5 memberships', async () => {
    const tenant = await createTenant(s.stack);
    const plan = await kit.plan(tenant, 'news', { title: 'News' });
    const free = await kit.pricing(plan.id, 'News free', { price: 0 });
    const created = await community().invitations.createInvitationCode({
      resourceId: tenant.resourceId,
      pricingId: free.id,
      code: '',
      activationsLimit: 5,
      email: '',
      title: '',
      description: '',
    });
    const joiners = await members(tenant, 20);
    const answers = await Promise.all(
      joiners.map((joiner) => call(joiner, 'POST', '/invite-activation', { invite: created?.['code'] as string })),
    );
    expect(outcomes(answers)).toEqual(expected(5, 15, '422 invalid_invite'));
    expect(
      await granted(
        tenant,
        free,
        joiners.map((joiner) => joiner.id),
      ),
    ).toBe(5);
  });

  it('20 parallel activations of a 5-seat sponsorship slot give 5 memberships', async () => {
    const tenant = await createTenant(s.stack);
    const plan = await kit.plan(tenant, 'gift', { title: 'Gift' });
    const pricing = await kit.pricing(plan.id, 'Gift year', { price: 5000, period: '1 year', type: 'gift' });
    const [sponsor] = await members(tenant, 1);
    const sponsorship = await community().sponsorships.createSponsorship({
      resourceId: tenant.resourceId,
      sponsorId: sponsor!.id,
      pricingId: pricing.id,
      purchaseKey: `caps-${tenant.resourceId}`,
      slots: 1,
      seatsPerSlot: 5,
      title: '',
      description: '',
      isPayingBySponsor: true,
      autorenew: false,
    });
    const code = sponsorship.slots[0]!.code;
    const recipients = await members(tenant, 20);
    const answers = await Promise.all(
      recipients.map((recipient) => call(recipient, 'PUT', '/recipient/sponsored-subscriptions/slots/activate', { activation_code: code })),
    );
    expect(outcomes(answers)).toEqual(expected(5, 15, '409 sponsor_slot_activation_error'));
    expect(
      await granted(
        tenant,
        pricing,
        recipients.map((recipient) => recipient.id),
      ),
    ).toBe(5);
    expect(await s.db('community').collection('sponsorship_slot_activations').countDocuments({ sponsorship_id: sponsorship.id })).toBe(5);
  });
});
