import type { Caller } from '@masthead/proto/community/teams';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCommunityStack, type CommunityStack } from './support/harness.js';

/**
 * A claim and its grant succeed or fail together (docs/adr/0233), also when the grant's outcome
 * is unknown: community reaches catalog through a link that goes dark mid-call, so catalog
 * grants the membership and the answer never comes back (or the call never arrives), as over a
 * network that failed. At rest, no seat is without its membership and no membership without its
 * seat.
 */
let stack: CommunityStack;
beforeAll(async () => {
  stack = await startCommunityStack({
    overDarkLink: true,
    // A grant call's deadline is short here; the pending-grant pass runs often, and takes a claim
    // over only once it is a minute old (tests age a claim to hand it to the pass).
    env: { GRPC_DEADLINE_MS: '1500', GRANT_PASS_INTERVAL_MS: '200', GRANT_LEASE_MS: '60000' },
  });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
}, 30_000);
afterEach(() => stack.link!.restore());

let lastId = 9000;
const newId = () => ++lastId;
const callerIn = (resourceId: number, userId = newId()): Caller => ({
  resourceId,
  userId,
  email: `u${userId}@example.com`,
  role: 'user',
});
const db = () => stack.community.db;

/** A resource whose member owns a team (created as POST /user/teams does), and an open team code for a free seat. */
async function teamWithCode(resourceId: number) {
  const client = stack.catalog.client;
  const teamPlan = await client.upsertPlan({
    resourceId,
    slug: `team-${resourceId}`,
    title: 'Team',
    active: true,
    private: false,
    fullAccess: false,
    canOwnTeams: true,
  });
  const teamPricing = await client.upsertPricing({
    planId: teamPlan.id,
    title: 'Team',
    price: 0,
    currency: 'USD',
    period: '1 year',
    active: true,
    private: false,
    externalSourceIds: '',
  });
  const seatPlan = await client.upsertPlan({
    resourceId,
    slug: `seat-${resourceId}`,
    title: 'Seat',
    active: true,
    private: true,
    fullAccess: false,
    parentPlanId: teamPlan.id,
  });
  const seatFields = {
    planId: seatPlan.id,
    title: 'Seat',
    price: 0,
    currency: 'USD',
    period: '1 year',
    private: true,
    externalSourceIds: '',
    usersLimit: 5,
  };
  const seat = await client.upsertPricing({ ...seatFields, active: true });
  const owner = callerIn(resourceId);
  await client.grantMembership({ resourceId, userId: owner.userId, pricingId: teamPricing.id, autorenew: false });
  const team = await stack.teams.createTeam({ caller: owner, name: 'Crew', autoAllowedDomains: false });
  const code = `grant-${resourceId}`;
  await db()
    .collection('invites')
    .insertOne({
      _id: newId() as never,
      resource_id: resourceId,
      code,
      code_key: code,
      dedupe_key: `code:${resourceId}:${code}`,
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
  const retire = () => client.upsertPricing({ ...seatFields, active: false });
  return { team, seat, code, retire };
}

/** What the member holds at rest: team relationships, seats of the Pricing, memberships of it, the activation's state. */
async function holdings(resourceId: number, teamId: number, pricingId: number, userId: number) {
  const memberships = await stack.catalog.client.listMemberships({ resourceId, userId, includeHistory: false });
  return {
    relationships: await db().collection('team_members').countDocuments({ team_id: teamId, user_id: userId }),
    pricingSeats: await db().collection('team_pricing_seats').countDocuments({ team_id: teamId, pricing_id: pricingId, user_id: userId }),
    memberships: memberships.items.filter((membership) => membership.active && membership.pricing?.id === pricingId).length,
    activation: (await db().collection('invite_activations').findOne({ user_id: userId }))?.['state'] ?? null,
  };
}

const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe('an invitation activation whose grant ends without a verdict', () => {
  it('keeps its seats when catalog granted but the answer was lost, and the member’s retry finishes it', async () => {
    const resourceId = newId();
    const { team, seat, code } = await teamWithCode(resourceId);
    const member = callerIn(resourceId);
    // Community's calls: the Pricing (1), then the grant (2), whose answer is lost.
    stack.link!.darkenAt(2, 'replies');
    await expect(stack.invitations.activateInvite({ caller: member, invite: code, singleSubscription: false })).rejects.toMatchObject({
      status: 406,
      code: 'accept_invite_fail',
    });
    stack.link!.restore();
    // Catalog granted it: the seats stay with it (they used to be given back, leaving the membership seatless).
    expect(await holdings(resourceId, team.id, seat.id, member.userId)).toEqual({
      relationships: 1,
      pricingSeats: 1,
      memberships: 1,
      activation: 'granting',
    });
    await expect(stack.invitations.activateInvite({ caller: member, invite: code, singleSubscription: false })).resolves.toEqual({
      result: true,
    });
    expect(await holdings(resourceId, team.id, seat.id, member.userId)).toEqual({
      relationships: 1,
      pricingSeats: 1,
      memberships: 1,
      activation: 'granted',
    });
  }, 60_000);

  it('is finished by the pending-grant pass when the member does not come back', async () => {
    const resourceId = newId();
    const { team, seat, code } = await teamWithCode(resourceId);
    const member = callerIn(resourceId);
    stack.link!.darkenAt(2, 'replies');
    await expect(stack.invitations.activateInvite({ caller: member, invite: code, singleSubscription: false })).rejects.toMatchObject({
      code: 'accept_invite_fail',
    });
    stack.link!.restore();
    // Aged past the lease: the pass takes it over.
    await db()
      .collection('invite_activations')
      .updateOne({ user_id: member.userId }, { $set: { created_at: new Date(Date.now() - 120_000) } });
    const after = await until(
      () => holdings(resourceId, team.id, seat.id, member.userId),
      (held) => held.activation === 'granted',
    );
    expect(after).toEqual({ relationships: 1, pricingSeats: 1, memberships: 1, activation: 'granted' });
  }, 60_000);

  it('gives every claim back when the grant never reached catalog and its Pricing is retired meanwhile', async () => {
    const resourceId = newId();
    const { team, seat, code, retire } = await teamWithCode(resourceId);
    const member = callerIn(resourceId);
    stack.link!.darkenAt(2, 'requests');
    await expect(stack.invitations.activateInvite({ caller: member, invite: code, singleSubscription: false })).rejects.toMatchObject({
      code: 'accept_invite_fail',
    });
    stack.link!.restore();
    expect(await holdings(resourceId, team.id, seat.id, member.userId)).toEqual({
      relationships: 1,
      pricingSeats: 1,
      memberships: 0,
      activation: 'granting',
    });
    await retire();
    await db()
      .collection('invite_activations')
      .updateOne({ user_id: member.userId }, { $set: { created_at: new Date(Date.now() - 120_000) } });
    const after = await until(
      () => holdings(resourceId, team.id, seat.id, member.userId),
      (held) => held.activation === null,
    );
    expect(after).toEqual({ relationships: 0, pricingSeats: 0, memberships: 0, activation: null });
  }, 60_000);
});

describe('a sponsorship seat whose grant ends without a verdict', () => {
  /** A one-seat gift of a resource, its slot's code, and two recipients. */
  async function gift() {
    const resourceId = newId();
    const client = stack.catalog.client;
    const plan = await client.upsertPlan({
      resourceId,
      slug: `gift-${resourceId}`,
      title: 'Gift',
      active: true,
      private: false,
      fullAccess: false,
    });
    const pricing = await client.upsertPricing({
      planId: plan.id,
      title: 'Gift year',
      price: 5000,
      currency: 'USD',
      period: '1 year',
      active: true,
      private: false,
      externalSourceIds: '',
      type: 'gift',
    });
    const sponsorship = await stack.sponsorships.createSponsorship({
      resourceId,
      sponsorId: newId(),
      pricingId: pricing.id,
      purchaseKey: `purchase-${resourceId}`,
      slots: 1,
      seatsPerSlot: 1,
      title: '',
      description: '',
      isPayingBySponsor: true,
      autorenew: false,
    });
    return { resourceId, pricing, sponsorship, code: sponsorship.slots[0]!.code };
  }
  const seatsOf = async (sponsorshipId: number) =>
    (await db().collection('sponsorship_slot_activations').find({ sponsorship_id: sponsorshipId }).toArray()).map((row) => ({
      user_id: row['user_id'],
      membership_id: row['membership_id'],
    }));

  it('keeps the seat when catalog granted but the answer was lost: nobody else takes it, and the pass finishes it', async () => {
    const { resourceId, pricing, sponsorship, code } = await gift();
    const recipient = callerIn(resourceId);
    // The recipient's one call to catalog is the grant; its answer is lost.
    stack.link!.darkenAt(1, 'replies');
    await expect(stack.sponsorships.activateSlot({ caller: recipient, code })).rejects.toMatchObject({
      status: 409,
      code: 'sponsor_slot_activation_error',
    });
    stack.link!.restore();
    const granted = async () =>
      (await stack.catalog.client.listMemberships({ resourceId, userId: recipient.userId, includeHistory: false })).items.filter(
        (membership) => membership.active && membership.pricing?.id === pricing.id,
      );
    expect(await granted()).toHaveLength(1);
    // The seat is still the recipient's (it used to be freed, so a second recipient got a second membership).
    expect(await seatsOf(sponsorship.id)).toEqual([{ user_id: recipient.userId, membership_id: null }]);
    await expect(stack.sponsorships.activateSlot({ caller: callerIn(resourceId), code })).rejects.toMatchObject({
      code: 'sponsor_slot_activation_error',
    });
    await db()
      .collection('sponsorship_slot_activations')
      .updateOne({ sponsorship_id: sponsorship.id }, { $set: { created_at: new Date(Date.now() - 120_000) } });
    const [membership] = await granted();
    const seats = await until(
      () => seatsOf(sponsorship.id),
      (rows) => rows[0]?.membership_id !== null,
    );
    expect(seats).toEqual([{ user_id: recipient.userId, membership_id: membership!.id }]);
  }, 60_000);
});
