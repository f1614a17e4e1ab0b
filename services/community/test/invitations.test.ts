import type { Caller } from '@masthead/proto/community/teams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommunityStack, type CommunityStack } from './support/harness.js';

let stack: CommunityStack;
beforeAll(async () => {
  stack = await startCommunityStack();
}, 90_000);
afterAll(async () => {
  await stack?.stop();
}, 30_000);

// Users and resources are just numbers here; each test takes fresh ones (isolation by tenant).
let lastId = 5000;
const newId = () => ++lastId;
const callerIn = (resourceId: number, userId = newId(), email = `u${userId}@example.com`): Caller => ({
  resourceId,
  userId,
  email,
  role: 'user',
});

/** A resource with a team plan (can own teams) and a free seat Pricing. */
async function catalogOf(resourceId: number, usersLimit?: number) {
  const teamPlan = await stack.catalog.client.upsertPlan({
    resourceId,
    slug: `team-${resourceId}`,
    title: 'Team',
    active: true,
    private: false,
    fullAccess: false,
    canOwnTeams: true,
  });
  const teamPricing = await stack.catalog.client.upsertPricing({
    planId: teamPlan.id,
    title: 'Team yearly',
    price: 0,
    currency: 'USD',
    period: '1 year',
    active: true,
    private: false,
    externalSourceIds: '',
  });
  const seatPlan = await stack.catalog.client.upsertPlan({
    resourceId,
    slug: `seat-${resourceId}`,
    title: 'Seat',
    active: true,
    private: true,
    fullAccess: false,
    parentPlanId: teamPlan.id,
  });
  const seat = await stack.catalog.client.upsertPricing({
    planId: seatPlan.id,
    title: 'Seat',
    price: 0,
    currency: 'USD',
    period: '1 year',
    active: true,
    private: true,
    externalSourceIds: '',
    ...(usersLimit === undefined ? {} : { usersLimit }),
  });
  const paid = await stack.catalog.client.upsertPricing({
    planId: seatPlan.id,
    title: 'Paid seat',
    price: 1000,
    currency: 'USD',
    period: '1 year',
    active: true,
    private: true,
    externalSourceIds: '',
  });
  return { teamPricing, seat, paid };
}

async function ownerWithTeam(resourceId: number) {
  const { teamPricing, seat, paid } = await catalogOf(resourceId);
  const owner = callerIn(resourceId);
  await stack.catalog.client.grantMembership({ resourceId, userId: owner.userId, pricingId: teamPricing.id, autorenew: false });
  const team = await stack.teams.createTeam({ caller: owner, name: ' Crew ', autoAllowedDomains: false });
  return { owner, team, seat, paid };
}

const membershipsOf = async (resourceId: number, userIds: number[]) =>
  (await Promise.all(userIds.map((userId) => stack.catalog.client.listMemberships({ resourceId, userId, includeHistory: false })))).flatMap(
    (list) => list.items,
  );

describe('teams', () => {
  it('creates a team only with can-own-teams eligibility, with the owner relationship', async () => {
    const resourceId = newId();
    const { owner, team } = await ownerWithTeam(resourceId);
    expect(team).toMatchObject({ name: 'Crew', ownerId: owner.userId, active: true, memberLimit: 0 });
    await expect(stack.teams.createTeam({ caller: callerIn(resourceId), name: 'x', autoAllowedDomains: false })).rejects.toMatchObject({
      status: 401,
      code: 'incorrect_data',
    });
    const list = await stack.teams.listTeams({ caller: owner });
    expect(list.items).toEqual([expect.objectContaining({ team: expect.objectContaining({ id: team.id }), usersCount: 1, invites: [] })]);
  });

  it('refuses to manage a team of another member, in its resource or another', async () => {
    const resourceA = newId();
    const { team } = await ownerWithTeam(resourceA);
    const { owner: otherOwner } = await ownerWithTeam(newId());
    for (const caller of [otherOwner, callerIn(resourceA)]) {
      await expect(stack.teams.getTeamDetail({ caller, teamId: team.id })).rejects.toMatchObject({ status: 401, code: 'incorrect_data' });
      await expect(
        stack.invitations.createTeamInvite({ caller, teamId: team.id, email: 'x@example.com', pricingId: 1 }),
      ).rejects.toMatchObject({ status: 401 });
    }
    await expect(stack.teams.getTeamDetail({ caller: otherOwner, teamId: 99_999_999 })).rejects.toMatchObject({
      status: 404,
      code: 'team_not_found',
    });
  });
});

describe('team invites', () => {
  it('creates an invite with a generated 40-character code and refuses a second one for the email', async () => {
    const resourceId = newId();
    const { owner, team, seat } = await ownerWithTeam(resourceId);
    const invite = await stack.invitations.createTeamInvite({
      caller: owner,
      teamId: team.id,
      email: '  Ann@Example.com ',
      pricingId: seat.id,
      code: 'ignored-code-123',
    });
    expect(invite).toMatchObject({ email: 'ann@example.com', activationsLimit: 1, teamId: team.id, title: 'Invitation to Crew' });
    expect(invite.code).toMatch(/^[0-9a-f]{40}$/);
    type Fields = Omit<Parameters<typeof stack.invitations.createTeamInvite>[0], 'caller' | 'teamId'>;
    const create = (fields: Fields) => stack.invitations.createTeamInvite({ caller: owner, teamId: team.id, ...fields });
    await expect(create({ email: 'ann@example.com', pricingId: seat.id })).rejects.toMatchObject({ code: 'invalid_email' });
    await expect(create({ email: `${'a'.repeat(50)}@example.com`, pricingId: seat.id })).rejects.toMatchObject({
      code: 'invalid_email',
    });
    await expect(create({ email: 'b@example.com', pricingId: 987654 })).rejects.toMatchObject({ code: 'invalid_subscription_id' });
    await expect(create({ email: 'b@example.com', pricingId: seat.id, title: '' })).rejects.toMatchObject({ code: 'invalid_title' });
    await expect(create({ email: 'b@example.com', pricingId: seat.id, code: 'short' })).rejects.toMatchObject({
      code: 'invalid_code',
    });
    await expect(create({ email: 'b@example.com', pricingId: seat.id, resourceId: String(resourceId + 1) })).rejects.toMatchObject({
      code: 'invalid_resource_id',
    });
  });
});

describe('invitation activation', () => {
  it('50 parallel activations of a code capped at 10 give exactly 10 memberships', async () => {
    const resourceId = newId();
    const { seat } = await catalogOf(resourceId);
    const code = await stack.invitations.createInvitationCode({
      resourceId,
      pricingId: seat.id,
      code: `Cap10-${resourceId}`,
      activationsLimit: 10,
      email: '',
      title: '',
      description: '',
    });
    const callers = Array.from({ length: 50 }, () => callerIn(resourceId));
    const results = await Promise.allSettled(
      callers.map((caller) => stack.invitations.activateInvite({ caller, invite: `cap10-${resourceId}`, singleSubscription: false })),
    );
    const granted = results.filter((result) => result.status === 'fulfilled');
    expect(granted).toHaveLength(10);
    expect(granted[0]).toEqual({ status: 'fulfilled', value: { result: true, subscriptionId: seat.id } });
    for (const result of results)
      if (result.status === 'rejected') expect(result.reason).toMatchObject({ status: 422, code: 'invalid_invite' });
    expect(
      await membershipsOf(
        resourceId,
        callers.map((caller) => caller.userId),
      ),
    ).toHaveLength(10);
    expect(code.activationsLimit).toBe(10);
  }, 60_000);

  it('50 parallel activations for a team with 10 free seats give exactly 10 relationships and memberships', async () => {
    const resourceId = newId();
    const { team, seat } = await ownerWithTeam(resourceId);
    // 11 seats: the owner's relationship holds one (document 2 D counts every relationship).
    await stack.community.db.collection('teams').updateOne({ _id: team.id as never }, { $set: { member_limit: 11 } });
    await stack.community.db.collection('invites').insertOne({
      _id: newId() as never,
      resource_id: resourceId,
      code: `TEAM-${resourceId}`,
      code_key: `team-${resourceId}`,
      dedupe_key: `code:${resourceId}:team`,
      email: null,
      user_name: null,
      title: 'Join',
      description: '',
      team_id: team.id,
      pricing_id: seat.id,
      activations_limit: 0,
      start_date: null,
      end_date: null,
      created_by: null,
      created_at: new Date(),
    });
    const callers = Array.from({ length: 50 }, () => callerIn(resourceId));
    const results = await Promise.allSettled(
      callers.map((caller) => stack.invitations.activateInvite({ caller, invite: `team-${resourceId}`, singleSubscription: false })),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(10);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toMatchObject({ status: 406, code: 'team_invitation_fail' });
    }
    expect(await stack.community.db.collection('team_members').countDocuments({ team_id: team.id })).toBe(11);
    expect(
      await membershipsOf(
        resourceId,
        callers.map((caller) => caller.userId),
      ),
    ).toHaveLength(10);
  }, 60_000);

  it('an invite of resource B cannot be validated or activated in resource A', async () => {
    const [resourceA, resourceB] = [newId(), newId()];
    const { seat } = await catalogOf(resourceB);
    await stack.invitations.createInvitationCode({
      resourceId: resourceB,
      pricingId: seat.id,
      code: `only-b-${resourceB}`,
      activationsLimit: 0,
      email: '',
      title: '',
      description: '',
    });
    await expect(
      stack.invitations.activateInvite({ caller: callerIn(resourceA), invite: `only-b-${resourceB}`, singleSubscription: false }),
    ).rejects.toMatchObject({
      status: 422,
      code: 'invalid_invite',
    });
    await expect(
      stack.invitations.validateInvite({
        resourceId: resourceA,
        invite: `only-b-${resourceB}`,
        email: '',
        returnInvite: false,
        ip: '1.1.1.1',
      }),
    ).rejects.toMatchObject({ status: 409, code: 'invalid_invite' });
    const preview = await stack.invitations.validateInvite({
      resourceId: resourceB,
      invite: `ONLY-B-${resourceB}`,
      email: '',
      returnInvite: false,
      ip: '1.1.1.1',
    });
    expect(preview).toEqual({ invite: expect.objectContaining({ code: `only-b-${resourceB}`, pricingId: seat.id }) });
  });

  it('checks a code for the identity exchange without the flood counter, and validates operator codes', async () => {
    const resourceId = newId();
    const { seat, paid } = await catalogOf(resourceId);
    const code = (fields: Partial<Parameters<typeof stack.invitations.createInvitationCode>[0]>) =>
      stack.invitations.createInvitationCode({
        resourceId,
        pricingId: seat.id,
        code: '',
        activationsLimit: 0,
        email: '',
        title: '',
        description: '',
        ...fields,
      });
    const generated = await code({ email: ' Bound@Example.com ' });
    expect(generated).toMatchObject({ email: 'bound@example.com', title: 'Seat', activationsLimit: 0 });
    expect(generated?.['code']).toMatch(/^[0-9a-f]{40}$/);
    const check = (email: string) => stack.invitations.checkInvite({ resourceId, invite: String(generated?.['code']), email });
    // More checks than the preview's flood limit: the exchange's check is not counted.
    for (let i = 0; i < 55; i++) await expect(check('bound@example.com')).resolves.toEqual({ result: true });
    await expect(check('else@example.com')).rejects.toMatchObject({ status: 409, code: 'invalid_invite' });

    await expect(code({ pricingId: paid.id })).rejects.toMatchObject({ code: 'invalid_subscription_id' });
    await expect(code({ pricingId: 987_654 })).rejects.toMatchObject({ status: 404, code: 'subscription_not_found' });
    await expect(code({ code: 'short' })).rejects.toMatchObject({ code: 'invalid_code' });
    await expect(code({ email: 'not-an-email' })).rejects.toMatchObject({ code: 'invalid_email' });
    await expect(code({ startDate: 'soon' })).rejects.toMatchObject({ code: 'invalid_start_date' });
    await expect(code({ startDate: '2030-01-02T00:00:00Z', endDate: '2030-01-01T00:00:00Z' })).rejects.toMatchObject({
      code: 'invalid_end_date',
    });
    await expect(code({ activationsLimit: -1 })).rejects.toMatchObject({ code: 'invalid_activations_limit' });
    await code({ code: 'Taken-Code-01' });
    await expect(code({ code: 'taken-code-01' })).rejects.toMatchObject({ status: 409, code: 'invalid_code' });
  });
});
