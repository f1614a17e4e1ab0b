import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { PassRepository, type NewPass } from '../src/passes/pass.repository.js';
import { TeamMemberRepository } from '../src/teams/team-member.repository.js';
import { TeamRepository } from '../src/teams/team.repository.js';
import { startCommunityHarness, type CommunityHarness } from './support/harness.js';

let harness: CommunityHarness;
let teams: TeamRepository;
let teamMembers: TeamMemberRepository;
let passes: PassRepository;
/** A pass outside any purchase: its own unique pass key. */
const insertPass = (pass: Omit<NewPass, 'pass_key' | 'purchase_key'>) =>
  passes.insert({ ...pass, pass_key: `test:${randomUUID()}`, purchase_key: null });

beforeAll(async () => {
  harness = await startCommunityHarness();
  // Later issues write these through the API; until then tests arrange rows as the service would.
  teams = new TeamRepository(harness.db);
  teamMembers = new TeamMemberRepository(harness.db);
  passes = new PassRepository(harness.db);
}, 60_000);
afterAll(async () => {
  await harness?.stop();
}, 30_000);

// Users and resources are just numbers here; each test takes fresh ones (isolation by tenant).
let lastId = 1000;
const newId = () => ++lastId;

const summary = (resourceId: number, userId: number) => harness.client.getMemberSummary({ resourceId, userId });

describe('GetMemberSummary', () => {
  it("lists the user's current teams with the relationship's role and status", async () => {
    const [userId, ownerId, resourceId] = [newId(), newId(), newId()];
    const owned = await teams.insert({ name: 'Owned', owner_id: userId, active: true, member_limit: 0 });
    const joined = await teams.insert({ name: 'Joined', owner_id: ownerId, active: true, member_limit: 5 });
    const paused = await teams.insert({ name: 'Paused', owner_id: ownerId, active: false, member_limit: 0 });
    const left = await teams.insert({ name: 'Left', owner_id: ownerId, active: true, member_limit: 0 });
    await teamMembers.insert({ team_id: owned._id, user_id: userId, role: 'owner', status: 'active' });
    await teamMembers.insert({ team_id: joined._id, user_id: userId, role: 'admin', status: 'suspended' });
    await teamMembers.insert({ team_id: paused._id, user_id: userId, role: 'user', status: 'active' });
    await teamMembers.insert({ team_id: left._id, user_id: userId, role: 'user', status: 'removed' });
    await teamMembers.insert({ team_id: joined._id, user_id: ownerId, role: 'owner', status: 'active' });
    // A relationship whose team row is gone is left out.
    await teamMembers.insert({ team_id: 987_654_321, user_id: userId, role: 'user', status: 'active' });

    const result = await summary(resourceId, userId);

    expect(result.teams).toEqual([
      { id: owned._id, name: 'Owned', role: 'owner', status: 'active' },
      { id: joined._id, name: 'Joined', role: 'admin', status: 'suspended' },
      { id: paused._id, name: 'Paused', role: 'user', status: 'active' },
    ]);
    // Teams have no resource: the same teams show in any resource.
    expect((await summary(newId(), userId)).teams).toEqual(result.teams);
    expect((await summary(resourceId, ownerId)).teams).toEqual([{ id: joined._id, name: 'Joined', role: 'owner', status: 'active' }]);
  });

  it('lists the passes of the resource assigned to the user, not the ones merely owned', async () => {
    const [userId, buyerId, resourceId, otherResourceId] = [newId(), newId(), newId(), newId()];
    const forMe = await insertPass({
      ti_event_id: 7,
      ticket_id: 70,
      resource_id: resourceId,
      owner_id: buyerId,
      assign_id: userId,
      extra: { seat: 'A12', dietary: ['vegan'], badge: { name: 'Ada' } },
    });
    const mine = await insertPass({
      ti_event_id: 7,
      ticket_id: 71,
      resource_id: resourceId,
      owner_id: userId,
      assign_id: userId,
      extra: {},
    });
    await insertPass({ ti_event_id: 7, ticket_id: 71, resource_id: resourceId, owner_id: userId, assign_id: null, extra: {} });
    await insertPass({ ti_event_id: 7, ticket_id: 71, resource_id: resourceId, owner_id: userId, assign_id: buyerId, extra: {} });
    await insertPass({ ti_event_id: 8, ticket_id: 80, resource_id: otherResourceId, owner_id: buyerId, assign_id: userId, extra: {} });

    const result = await summary(resourceId, userId);

    expect(result.assignedTickets).toEqual([
      {
        id: forMe._id,
        ti_event_id: 7,
        ticket_id: 70,
        owner_id: buyerId,
        assign_id: userId,
        extra: { seat: 'A12', dietary: ['vegan'], badge: { name: 'Ada' } },
      },
      { id: mine._id, ti_event_id: 7, ticket_id: 71, owner_id: userId, assign_id: userId, extra: {} },
    ]);
    expect((await summary(otherResourceId, userId)).assignedTickets).toHaveLength(1);
    expect((await summary(resourceId, buyerId)).assignedTickets.map((pass) => pass['owner_id'])).toEqual([userId]);
  });

  it('is empty for a user with no teams and no passes', async () => {
    expect(await summary(newId(), newId())).toEqual({ teams: [], assignedTickets: [] });
  });

  it('keeps one relationship per user and team', async () => {
    const team = await teams.insert({ name: 'Unique', owner_id: newId(), active: true, member_limit: 0 });
    const userId = newId();
    await teamMembers.insert({ team_id: team._id, user_id: userId, role: 'user', status: 'active' });
    await expect(teamMembers.insert({ team_id: team._id, user_id: userId, role: 'admin', status: 'active' })).rejects.toMatchObject({
      code: 11000,
    });
  });
});

describe('GetTeam', () => {
  it('returns a team of any status, and 404 team_not_found for an unknown or zero ID', async () => {
    const ownerId = newId();
    const team = await teams.insert({ name: 'Newsroom', owner_id: ownerId, active: false, member_limit: 3 });
    expect(await harness.client.getTeam({ teamId: team._id })).toEqual({ id: team._id, name: 'Newsroom', ownerId, active: false });
    const notFound = { status: 404, code: 'team_not_found', description: 'Team not found' };
    await expect(harness.client.getTeam({ teamId: 987_654_321 })).rejects.toMatchObject(notFound);
    await expect(harness.client.getTeam({ teamId: 0 })).rejects.toMatchObject(notFound);
  });
});
