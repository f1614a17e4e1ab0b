import { randomBytes } from 'node:crypto';
import { ROUTES, type RouteDefinition } from '@masthead/gateway';
import { createTenant, hexId, type Tenant } from '@masthead/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { billingKit } from './billing-support.js';
import { cardProviderTenant } from './card-provider-support.js';
import type { Json } from './catalog-support.js';
import { integrationsOperator } from './integrations-platform-support.js';
import { audienceKey, envelope, signIn, useProviders, type SignedIn } from './provider-support.js';
import { anyRequestId, collectEvents, type StackHandle } from './support.js';
import { ticketingKit } from './ti-events-support.js';

/** The resource the caller holds its role in (Y) and another partner's resource (X), with records of each. */
interface World {
  x: Tenant;
  y: Tenant;
  /** X's records, each of the kind a route names. */
  foreign: RecordIds;
  /** Y's records the caller owns or manages, for routes whose path must be the caller's own. */
  own: { team: number; pass: number };
  /** Every user of X (the snapshot's test for "X's documents"). */
  xUsers: Set<number>;
  /** Emails of X's members: no provider call of Y's may carry one. */
  xEmails: string[];
  yListId: string;
  admin: SignedIn;
  partner: SignedIn;
  root: SignedIn;
  /** An admin of X: the control that X's own admin reaches what Y's does not. */
  xAdmin: SignedIn;
}

interface RecordIds {
  member: number;
  team: number;
  invite: number;
  teamMember: number;
  membership: number;
  plan: number;
  pricing: number;
  card: number;
  customer: number;
  method: number;
  transaction: number;
  pass: number;
  event: number;
  sponsorship: number;
  slot: number;
  slotCode: string;
  template: string;
}

/** IDs no record has (nine digits: every path ID parser reads them as IDs): what "unknown" is answered like. */
const UNKNOWN: RecordIds = {
  member: 999_999_901,
  team: 999_999_902,
  invite: 999_999_903,
  teamMember: 999_999_904,
  membership: 999_999_905,
  plan: 999_999_906,
  pricing: 999_999_907,
  card: 999_999_908,
  customer: 999_999_909,
  method: 999_999_910,
  transaction: 999_999_911,
  pass: 999_999_912,
  event: 999_999_913,
  sponsorship: 999_999_914,
  slot: 999_999_915,
  slotCode: `UNKNOWN${randomBytes(6).toString('hex').toUpperCase()}`,
  template: `unknown-${hexId(8)}`,
};

/**
 * Parameters that name no record of a resource, with the reason they are not walked: the walk
 * fails on any other parameter it cannot fill, so a new route must say what it names.
 */
const NOT_RESOURCE_RECORDS: Record<string, string> = {
  '/languages/{id}': 'languages are reference data shared by every resource',
  '/auth/external/{token}': 'a one-time login token is a credential, not a record ID (recovery-external.test.ts)',
  '/user/extra/data/custom-fields/{field_key}': "a key of the caller's own extra data, not a record",
};

/** The record a path parameter names, by parameter and (for `{id}`) by the route's path. */
function recordFor(path: string, param: string, ids: RecordIds): string | number | undefined {
  switch (param) {
    case 'team_id':
      return ids.team;
    case 'invite_id':
      return ids.invite;
    case 'user_id':
      return ids.teamMember;
    case 'slot_id':
      return ids.slot;
    case 'code':
      return ids.slotCode;
    case 'name':
      return ids.template;
    case 'source_type':
      return 'payment-method';
    case 'id':
      break;
    default:
      return undefined;
  }
  const byPrefix: Array<[string, number]> = [
    ['/user/subscriptions/', ids.membership],
    ['/plans/', ids.plan],
    ['/subscriptions/', ids.pricing],
    ['/user/card/', ids.card],
    ['/user/cardprovider/customer/', ids.customer],
    ['/user/payment-sources/', ids.method],
    ['/user/transactions/', ids.transaction],
    ['/user/pass/', ids.pass],
    ['/ti-event/', ids.event],
    ['/user/ti-event/', ids.event],
    ['/sponsor/sponsored-subscriptions/', ids.sponsorship],
  ];
  return byPrefix.find(([prefix]) => path.startsWith(prefix))?.[1];
}

/** The path with its parameters filled from `ids` (team IDs from `teamOf`); undefined when one has no record kind. */
function fill(route: RouteDefinition, ids: RecordIds, teamOf: number): string | undefined {
  let missing = false;
  const path = route.path.replace(/\{(\w+)\}/g, (_whole, param: string) => {
    const value = param === 'team_id' ? teamOf : recordFor(route.path, param, ids);
    if (value === undefined) missing = true;
    return encodeURIComponent(String(value));
  });
  return missing ? undefined : path;
}

const hasParameters = (route: RouteDefinition) => route.path.includes('{');
/** Body or query fields that name a member or another resource's record. */
const NAMED_ID_FIELDS = ['user_id', 'assign_id', 'subscription_id'];

interface Operation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}

/** The body and query fields each route declares, as the gateway's OpenAPI document lists them (ADR 0208). */
function declaredFields(document: { paths: Record<string, Record<string, Operation>> }, route: RouteDefinition): string[] {
  const operation = document.paths[route.path]?.[route.method.toLowerCase()] ?? {};
  const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
  const body = Object.values(operation.requestBody?.content ?? {}).flatMap((media) => Object.keys(media.schema?.properties ?? {}));
  return [...query, ...body];
}

/** The body every writing route gets: the IDs under test, and fields that let each writer reach them. */
const bodyOf = (ids: RecordIds, listId: string): Json => ({
  user_id: ids.member,
  assign_id: ids.member,
  subscription_id: ids.pricing,
  lists: [listId],
  email: `walk-${hexId(6)}@example.test`,
  recipient_email: `walk-${hexId(6)}@example.test`,
  title: 'Taken over',
  description: 'Taken over',
  role: 'admin',
  status: 'suspended',
  extra: { taken: true },
  merge_fields: { FNAME: 'Mallory' },
});

/**
 * An answer without what differs between two requests anyway: the request ID, and the email-list
 * provider's clock in a member record (`last_changed`, when the caller's own record is written
 * twice, its `user_id` being ignored).
 */
const VARYING_FIELDS = new Set(['req_guid', 'last_changed']);

function comparable(response: { status: number; body: unknown }): unknown {
  const body = response.body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    return { status: response.status, body: Object.fromEntries(Object.entries(body).filter(([key]) => !VARYING_FIELDS.has(key))) };
  }
  return { status: response.status, body };
}

const SERVICE_DATABASES = ['accounts', 'identity', 'catalog', 'community', 'billing', 'integrations'];

/**
 * Roles are scoped to the resource they were granted in (docs/adr/0239): an admin or partner of
 * resource Y names records of resource X (another partner's) on every route that takes a record
 * ID or a user ID, and gets exactly the answer an ID that names nothing gets, while nothing of X
 * changes; root alone reaches across resources.
 */
describe('roles scoped to their resource', () => {
  const p = useProviders();
  const s = (): StackHandle => p.s;
  const billing = billingKit(p.s);
  const ticketing = ticketingKit(p.s);
  let world: World;
  /** Routes that take a record or user ID (path, body or query) or need an admin: what the walks cover. */
  let walked: RouteDefinition[];
  /** Of those, the routes that name a user or a Pricing in their body, query or path. */
  let namingUsers: RouteDefinition[];

  const api = (who: SignedIn, method: string, path: string, json?: unknown, query?: string) =>
    s().api(path, { method, headers: who.headers, ...(json === undefined ? {} : { json }), ...(query ? { query } : {}) });

  /** Every document of the stack that belongs to X: its resource's, its members', its team's. */
  async function xDocuments(): Promise<Record<string, unknown[]>> {
    const mine = (doc: Json, collection: string): boolean => {
      const numbers = (field: string) => (typeof doc[field] === 'number' ? (doc[field] as number) : undefined);
      if (numbers('resource_id') === world.x.resourceId) return true;
      for (const field of ['user_id', 'owner_id', 'sponsor_id', 'created_by']) {
        const id = numbers(field);
        if (id !== undefined && world.xUsers.has(id)) return true;
      }
      if (numbers('team_id') === world.foreign.team) return true;
      return collection === 'identity.users' && world.xUsers.has(doc['_id'] as number);
    };
    const all: Record<string, unknown[]> = {};
    for (const service of SERVICE_DATABASES) {
      const db = s().db(service);
      for (const { name } of await db.listCollections().toArray()) {
        const docs = (await db.collection(name).find().sort({ _id: 1 }).toArray()) as Json[];
        all[`${service}.${name}`] = docs.filter((doc) => mine(doc, `${service}.${name}`));
      }
    }
    return all;
  }

  /** Provider calls that carry an email of X's members. */
  const providerCallsForX = () =>
    [...p.listmgr.calls, ...p.audience.calls, ...p.crm.calls].filter((call) => {
      const text = `${call.path}?${call.query.toString()} ${JSON.stringify(call.body ?? '')}`.toLowerCase();
      return world.xEmails.some((email) => text.includes(email.toLowerCase()) || text.includes(encodeURIComponent(email).toLowerCase()));
    });

  /** Y: listmgr and audience configured (their fakes), an admin, a partner and a root, a team and a pass of the admin's. */
  async function arrangeY(): Promise<Pick<World, 'y' | 'admin' | 'partner' | 'root' | 'yListId' | 'own'>> {
    const y = await createTenant(s().stack, { settings: { ti_events_system: true } });
    const operator = p.operator();
    const access = hexId(24);
    const account = p.listmgr.account(access, hexId(24));
    const yListId = hexId(32);
    account.list(yListId);
    await operator.providerConfig.setProviderSecret({
      resourceId: y.resourceId,
      provider: 'listmgr',
      secret: JSON.stringify({ access_token: access, refresh_token: account.refreshToken }),
    });
    await operator.providerConfig.setListmgrSettings({
      resourceId: y.resourceId,
      clientId: 'client-1',
      customFields: [],
      consentToTrack: '',
    });
    await operator.listmgr.upsertList({
      id: 0,
      resourceId: y.resourceId,
      listId: yListId,
      listName: 'News',
      clientName: 'Y',
      unsubscribeSettings: 'AllClientLists',
      confirmedOpt: false,
      showList: true,
      requireList: false,
      allowedList: false,
    });
    const key = audienceKey();
    const audienceList = hexId();
    p.audience.account(key).list(audienceList, 'Members').category('Newsletters', ['Daily']);
    await operator.providerConfig.setProviderSecret({ resourceId: y.resourceId, provider: 'audience', secret: key });
    await operator.providerConfig.setAudienceSettings({
      resourceId: y.resourceId,
      listId: audienceList,
      interestCategory: 'Newsletters',
      server: '',
    });

    const [admin, partner, root] = [await signIn(s(), y, 'admin'), await signIn(s(), y, 'partner'), await signIn(s(), y, 'root')];
    // The admin owns a team and a pass in Y: routes whose path must be the caller's own.
    const teamPlan = await billing.kit.plan(y, 'team', { title: 'Team', canOwnTeams: true });
    const teamPricing = await billing.kit.pricing(teamPlan.id, 'Team', { price: 0, period: '1 year' });
    await billing.kit.grant(y, admin.id, teamPricing.id);
    const team = await api(admin, 'POST', '/user/teams', { name: 'Y crew' });
    expect(team.status, team.text).toBe(200);
    const event = await ticketing.event(y, 'Y launch');
    const ticket = await ticketing.ticket(event.id, 'General', { unassignLimit: 5 });
    const [pass] = await ticketing.buy(y, ticket.id, admin.id);
    return { y, admin, partner, root, yListId, own: { team: team.body['id'] as number, pass: pass! } };
  }

  /** X: a member with a membership, a legacy customer and card, a saved method, a transaction, a pass, a sponsorship; a team with an invite and a member. */
  async function arrangeX(): Promise<Pick<World, 'x' | 'foreign' | 'xUsers' | 'xEmails' | 'xAdmin'>> {
    const x = await cardProviderTenant(s(), { ti_events_system: true });
    const plan = await billing.kit.plan(x, 'digital', { title: 'Digital' });
    const pricing = await billing.kit.pricing(plan.id, 'Monthly', { price: 499, externalSourceIds: 'com.x.monthly' });
    const buyer = await billing.buyer(x);
    const member = { id: buyer.member.id, email: buyer.member.email, headers: buyer.headers };
    const membership = await billing.kit.grant(x, member.id, pricing.id);
    const legacy = await api(member, 'POST', '/user/cardprovider/token', { token: (await billing.provider.cardToken())['id'] });
    expect(legacy.status, legacy.text).toBe(201);
    const card = await api(member, 'POST', '/user/card', { token: (await billing.provider.cardToken())['id'] });
    expect(card.status, card.text).toBe(201);

    const { key } = await s().stack.operator.serviceAccounts.createServiceAccount({
      resourceId: x.resourceId,
      title: 'X store',
      fullAccess: true,
      grants: [],
    });
    const purchase = await s().api('/integrations/external/subscription', {
      method: 'POST',
      headers: { resource: x.publicKey, 'service-api-key': key },
      json: { user_id: member.id, transaction_id: `GPA.${hexId(8)}`, subscription_id: pricing.id },
    });
    expect(purchase.status, purchase.text).toBe(201);

    const event = await ticketing.event(x, 'X launch');
    const ticket = await ticketing.ticket(event.id, 'General');
    const [pass] = await ticketing.buy(x, ticket.id, member.id);
    const sponsorship = await ticketing.community().sponsorships.createSponsorship({
      resourceId: x.resourceId,
      sponsorId: member.id,
      pricingId: pricing.id,
      purchaseKey: `walk-${hexId(8)}`,
      slots: 1,
      seatsPerSlot: 1,
      title: '',
      description: '',
      isPayingBySponsor: false,
      autorenew: false,
    });
    const slot = (await s().db('community').collection('sponsorship_slots').findOne({ sponsorship_id: sponsorship.id })) as Json | null;
    const template = `x-only-${hexId(8)}`;
    const templates = integrationsOperator(s());
    try {
      await templates.templates.upsertTemplate({
        resourceId: x.resourceId,
        name: template,
        version: '1',
        title: 'X only',
        slug: template,
        template: '<div>X</div>',
        javascript: '',
        css: '',
        settings: {},
        active: true,
        published: true,
      });
    } finally {
      templates.close();
    }

    // A team of X: its owner, an invite waiting, and a member who joined.
    const teamPlan = await billing.kit.plan(x, 'team', { title: 'Team', canOwnTeams: true });
    const teamPricing = await billing.kit.pricing(teamPlan.id, 'Team', { price: 0, period: '1 year' });
    const seatPlan = await billing.kit.plan(x, 'seat', { title: 'Seat', private: true, parentPlanId: teamPlan.id });
    const seat = await billing.kit.pricing(seatPlan.id, 'Seat', { price: 0, private: true });
    const owner = await signIn(s(), x);
    await billing.kit.grant(x, owner.id, teamPricing.id);
    const team = (await api(owner, 'POST', '/user/teams', { name: 'X crew' })).body['id'] as number;
    const joiner = await signIn(s(), x);
    const joinInvite = await api(owner, 'POST', `/user/teams/${team}/invites`, { email: joiner.email, subscription_id: seat.id });
    expect(joinInvite.status, joinInvite.text).toBe(201);
    expect((await api(joiner, 'POST', '/invite-activation', { invite: joinInvite.body['code'] })).status).toBe(200);
    const waiting = await api(owner, 'POST', `/user/teams/${team}/invites`, {
      email: `invitee-${hexId(6)}@example.test`,
      subscription_id: seat.id,
    });
    expect(waiting.status, waiting.text).toBe(201);
    const xAdmin = await signIn(s(), x, 'admin');

    const foreign: RecordIds = {
      member: member.id,
      team,
      invite: waiting.body['id'] as number,
      teamMember: joiner.id,
      membership,
      plan: plan.id,
      pricing: pricing.id,
      card: card.body['id'] as number,
      customer: legacy.body['id'] as number,
      method: buyer.methodId,
      transaction: (purchase.body['transaction'] as Json)['id'] as number,
      pass: pass!,
      event: event.id,
      sponsorship: sponsorship.id,
      slot: slot!['_id'] as number,
      slotCode: slot!['code'] as string,
      template,
    };
    const users = [member, owner, joiner, xAdmin];
    return {
      x,
      foreign,
      xUsers: new Set(users.map((user) => user.id)),
      xEmails: [...users.map((user) => user.email), waiting.body['email'] as string],
      xAdmin,
    };
  }

  beforeAll(async () => {
    const document = (await s().api('/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
    const namesIds = (route: RouteDefinition) => declaredFields(document, route).some((field) => NAMED_ID_FIELDS.includes(field));
    walked = ROUTES.filter((route) => route.access === 'admin' || hasParameters(route) || namesIds(route));
    namingUsers = walked.filter((route) => route.path.includes('{user_id}') || namesIds(route));
    const [ySide, xSide] = [await arrangeY(), await arrangeX()];
    world = { ...ySide, ...xSide };
  }, 180_000);

  const resetProviderCalls = () => {
    for (const fake of [p.listmgr, p.audience, p.crm]) fake.calls.length = 0;
  };

  it('walks every route that names a record or a user, and every admin route (a new one must be placed)', () => {
    const unplaced = walked.filter((route) => !(route.path in NOT_RESOURCE_RECORDS) && fill(route, UNKNOWN, 1) === undefined);
    expect(unplaced.map((route) => `${route.method} ${route.path}`)).toEqual([]);
    const names = (routes: RouteDefinition[]) => routes.map((route) => `${route.method} ${route.path}`);
    expect(names(walked)).toEqual(
      expect.arrayContaining([
        'POST /user/teams/{team_id}/invites/{invite_id}/resend',
        'POST /admin/teams/{team_id}/invites/{invite_id}/resend',
        'GET /admin/countries',
        'DELETE /admin/integrations/cardprovider/connect',
      ]),
    );
    // Document 2 H and I read `user_id` from bodies and queries; passes take `assign_id`.
    expect(names(namingUsers)).toEqual(
      expect.arrayContaining([
        'GET /integrations/listmgr/interests',
        'POST /integrations/listmgr/subscribe',
        'POST /integrations/listmgr/unsubscribe',
        'GET /integrations/audience/subscriber-info',
        'POST /integrations/audience/subscribe',
        'POST /integrations/audience/unsubscribe',
        'POST /integrations/external/subscription',
        'PUT /user/pass/{id}/assign',
        'PUT /user/teams/{team_id}/users/{user_id}',
      ]),
    );
    expect(walked.length).toBeGreaterThan(60);
  });

  it.each(['admin', 'partner'] as const)(
    "an %s of Y naming X's records gets the answer an unknown ID gets, and nothing of X changes",
    async (role) => {
      const caller = world[role];
      const before = await xDocuments();
      resetProviderCalls();
      const differences: string[] = [];
      for (const route of walked) {
        if (route.path in NOT_RESOURCE_RECORDS) continue;
        // Teams have no resource (document 2 C): X's team stays, what it holds is X's or nothing.
        const foreignPath = fill(route, world.foreign, world.foreign.team)!;
        const unknownPath = fill(route, UNKNOWN, world.foreign.team)!;
        const send = (path: string, ids: RecordIds) =>
          route.method === 'GET'
            ? api(caller, 'GET', path, undefined, `user_id=${ids.member}`)
            : api(caller, route.method, path, bodyOf(ids, world.yListId));
        const foreign = comparable(await send(foreignPath, world.foreign));
        const unknown = comparable(await send(unknownPath, UNKNOWN));
        if (JSON.stringify(foreign) !== JSON.stringify(unknown)) {
          differences.push(`${route.method} ${route.path}: X's → ${JSON.stringify(foreign)}; unknown → ${JSON.stringify(unknown)}`);
        }
      }
      expect(differences).toEqual([]);
      expect(await xDocuments()).toEqual(before);
      expect(providerCallsForX()).toEqual([]);
    },
  );

  it("an admin of Y naming X's members and Pricings from its own team and pass gets the unknown ID's answer", async () => {
    const before = await xDocuments();
    resetProviderCalls();
    const own: RecordIds = { ...UNKNOWN, team: world.own.team, pass: world.own.pass };
    const differences: string[] = [];
    for (const route of namingUsers) {
      const path = (ids: RecordIds) => fill(route, { ...own, teamMember: ids.teamMember }, own.team)!;
      const send = (ids: RecordIds) =>
        route.method === 'GET'
          ? api(world.admin, 'GET', path(ids), undefined, `user_id=${ids.member}`)
          : api(world.admin, route.method, path(ids), bodyOf(ids, world.yListId));
      const foreign = comparable(await send(world.foreign));
      const unknown = comparable(await send(UNKNOWN));
      if (JSON.stringify(foreign) !== JSON.stringify(unknown)) {
        differences.push(`${route.method} ${route.path}: X's → ${JSON.stringify(foreign)}; unknown → ${JSON.stringify(unknown)}`);
      }
    }
    expect(differences).toEqual([]);
    expect(await xDocuments()).toEqual(before);
    expect(providerCallsForX()).toEqual([]);
  });

  it("aims no admin route at X: Y's admin token with X's resource key is no token there", async () => {
    const before = await xDocuments();
    for (const route of ROUTES.filter((row) => row.access === 'admin')) {
      const response = await s().api(route.path, {
        method: route.method,
        headers: { resource: world.x.publicKey, token: world.admin.headers['token']! },
        ...(route.method === 'GET' ? {} : { json: { code: 'ac_walk' } }),
      });
      expect([route.path, response.status, response.body]).toEqual([
        route.path,
        401,
        { error: 'auth_failed', error_description: expect.any(String), req_guid: anyRequestId },
      ]);
    }
    expect(await xDocuments()).toEqual(before);
  });

  it("listmgr subscribe: an admin of Y cannot put X's member into Y's list (404 as unknown); X's own admin and root can", async () => {
    const subscribe = (who: SignedIn, userId: number) =>
      api(who, 'POST', '/integrations/listmgr/subscribe', { lists: [world.yListId], user_id: userId });
    resetProviderCalls();
    for (const caller of [world.admin, world.partner]) {
      const foreign = await subscribe(caller, world.foreign.member);
      const unknown = await subscribe(caller, UNKNOWN.member);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual(envelope('user_not_found', 'User not found'));
      expect(comparable(foreign)).toEqual(comparable(unknown));
    }
    expect(providerCallsForX()).toEqual([]);
    // Root reaches across resources; a member of Y is within an admin's reach.
    expect((await subscribe(world.root, world.foreign.member)).status).toBe(200);
    expect(providerCallsForX().length).toBeGreaterThan(0);
    expect((await subscribe(world.admin, world.partner.id)).status).toBe(200);
  });

  it.each(['/user', '/admin'])(
    "resend under %s: an admin of Y cannot resend X's invite (the team guard's refusal); X's admin and root can",
    async (prefix) => {
      const events = collectEvents(s().nats, 'individual_in_team_invite');
      const resend = (who: SignedIn, inviteId = world.foreign.invite) =>
        api(who, 'POST', `${prefix}/teams/${world.foreign.team}/invites/${inviteId}/resend`);
      const refused = { error: 'incorrect_data', error_description: expect.any(String), req_guid: anyRequestId };
      for (const caller of [world.admin, world.partner]) {
        const foreign = await resend(caller);
        expect([foreign.status, foreign.body]).toEqual([401, refused]);
        expect(comparable(await resend(caller, UNKNOWN.invite))).toEqual(comparable(foreign));
      }
      expect((await resend(world.xAdmin)).body).toEqual({ result: true });
      expect((await resend(world.root)).body).toEqual({ result: true });
      // Two resends, each in the invite's own resource.
      await expect
        .poll(() =>
          events.filter((event) => (event['payload'] as Json)['invite_id'] === world.foreign.invite).map((event) => event['resource_id']),
        )
        .toEqual([world.x.resourceId, world.x.resourceId]);
    },
  );
});
