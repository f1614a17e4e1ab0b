import { randomUUID } from 'node:crypto';
import type { Pricing } from '@masthead/proto/catalog';
import type { Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { cardProviderTenant } from './card-provider-support.js';
import { catalogKit, type Json } from './catalog-support.js';
import { anyIsoDate, anyRequestId, collectEvents, eventWhere, useStack } from './support.js';

/**
 * Teams, team members and team invites (document 2 C) through the gateway, against community,
 * catalog, billing and identity on FerretDB and NATS.
 */
describe('teams', () => {
  const s = useStack();
  const kit = catalogKit(s);
  const community = () => s.db('community');
  const errorBody = (code: string) => ({ error: code, error_description: expect.any(String), req_guid: anyRequestId });
  /** A field's refusal (document 2 Errors): 409 with `error: true` and the field under error_fields. */
  const fieldRefusal = (field: string) => ({ status: 409, body: { error: true, error_fields: { [field]: expect.any(String) } } });

  /** A resource in card-provider test mode with a team plan, and a seat plan: a free, a one-seat and a paid Pricing. */
  async function arrange(settings: Json = {}) {
    const tenant = await cardProviderTenant(s, settings);
    const teamPlan = await kit.plan(tenant, 'team', { title: 'Team', canOwnTeams: true });
    const teamPricing = await kit.pricing(teamPlan.id, 'Team yearly', { price: 0, period: '1 year' });
    const seatPlan = await kit.plan(tenant, 'seat', { title: 'Seat', private: true, parentPlanId: teamPlan.id });
    const seat = await kit.pricing(seatPlan.id, 'Seat', { price: 0, private: true });
    const singleSeat = await kit.pricing(seatPlan.id, 'Single seat', { price: 0, private: true, usersLimit: 1 });
    const paidSeat = await kit.pricing(seatPlan.id, 'Paid seat', { price: 900, private: true });
    return { tenant, teamPricing, seat, singleSeat, paidSeat };
  }
  type Arranged = Awaited<ReturnType<typeof arrange>>;

  type Member = Awaited<ReturnType<typeof kit.signedInMember>> & { headers: Record<string, string> };
  const member = async (tenant: Tenant, role = 'user'): Promise<Member> => {
    const signedIn = await kit.signedInMember(tenant, role);
    return { ...signedIn, headers: { resource: tenant.publicKey, token: signedIn.token } };
  };
  /** A member who may own teams: a membership of the team plan. */
  const eligible = async (a: Arranged) => {
    const owner = await member(a.tenant);
    await kit.grant(a.tenant, owner.id, a.teamPricing.id);
    return owner;
  };

  type Body = Json | { form: Record<string, string> };
  const call = (who: { headers: Record<string, string> }, method: string, path: string, body?: Body) =>
    s.api(path, {
      method,
      headers: who.headers,
      ...(body === undefined ? {} : 'form' in body ? { form: body.form as Record<string, string> } : { json: body }),
    });
  const createTeam = async (owner: Member, name = 'Crew') => {
    const response = await call(owner, 'POST', '/user/teams', { name });
    expect(response.status).toBe(200);
    return response.body['id'] as number;
  };
  const invite = (owner: Member, teamId: number, body: Json) => call(owner, 'POST', `/user/teams/${teamId}/invites`, body);
  /** The invitee activates the team invite sent to their email; their relationship is then active. */
  const join = async (a: Arranged, owner: Member, teamId: number, pricing: Pricing = a.seat) => {
    const invitee = await member(a.tenant);
    const created = await invite(owner, teamId, { email: invitee.email, subscription_id: pricing.id });
    expect(created.status).toBe(201);
    const activated = await call(invitee, 'POST', '/invite-activation', { invite: created.body['code'] });
    expect(activated.body).toEqual({ result: true, subscription_id: null });
    return invitee;
  };
  const teamRecord = (fields: Json) => ({
    id: expect.any(Number),
    description: null,
    active: true,
    member_limit: 0,
    allowed_domains: [],
    created_at: anyIsoDate,
    updated_at: anyIsoDate,
    ...fields,
  });

  describe('POST /user/teams and GET /user/teams', () => {
    it('creates a team for an eligible member, with its owner relationship and event', async () => {
      const a = await arrange();
      const events = collectEvents(s.nats, 'team_owner_create_team');
      const stranger = await member(a.tenant);
      expect((await call(stranger, 'POST', '/user/teams', { name: 'Crew' })).body).toEqual(errorBody('incorrect_data'));

      const owner = await eligible(a);
      expect(await call(owner, 'POST', '/user/teams', { form: { name: 'Crew' } })).toMatchObject({
        status: 406,
        body: errorBody('incorrect_data'),
      });
      const created = await call(owner, 'POST', '/user/teams', { name: ' <b>Crew</b> ', description: 'Our crew' });
      expect(created.status).toBe(200);
      expect(created.body).toEqual(teamRecord({ name: 'Crew', description: 'Our crew', owner_id: owner.id }));
      const teamId = created.body['id'] as number;
      // NATS is shared by the run's stacks, whose IDs overlap: the event is found by a unique name.
      const named = `Crew ${randomUUID()}`;
      const namedTeam = await createTeam(owner, named);
      expect(await eventWhere(events, 'name', named)).toMatchObject({
        resource_id: a.tenant.resourceId,
        payload: { team_id: namedTeam, owner_id: owner.id },
      });
      expect(await community().collection('team_members').findOne({ team_id: teamId })).toMatchObject({
        user_id: owner.id,
        role: 'owner',
        status: 'active',
      });
      // A description that is not text is not stored.
      expect((await call(owner, 'POST', '/user/teams', { name: 'Two', description: 7 })).body).toMatchObject({ description: null });

      for (const name of ['', '   ', 42, 'x'.repeat(256)]) {
        expect(await call(owner, 'POST', '/user/teams', { name }), String(name)).toMatchObject(fieldRefusal('name'));
      }
    });

    it("derives an allowed domain from the owner's email with auto_allowed_domains_for_team", async () => {
      const a = await arrange({ auto_allowed_domains_for_team: true });
      const owner = await eligible(a);
      const created = await call(owner, 'POST', '/user/teams', { name: 'Crew' });
      expect(created.body['allowed_domains']).toEqual([owner.email.split('@')[1]!.toLowerCase()]);
      // Invitees must match it.
      const refused = await invite(owner, created.body['id'] as number, { email: 'someone@elsewhere.test', subscription_id: a.seat.id });
      expect(refused).toMatchObject(fieldRefusal('email'));
    });

    it('lists teams the member owns or administers, newest first, with filter, limit and unpaginated invites', async () => {
      const a = await arrange();
      const owner = await eligible(a);
      const [first, second, third] = [await createTeam(owner, 'One'), await createTeam(owner, 'Two'), await createTeam(owner, 'Three')];
      const invited = await invite(owner, first, { email: 'ann@example.com', subscription_id: a.seat.id });

      const all = await call(owner, 'GET', '/user/teams');
      expect(all.status).toBe(200);
      expect((all.body['items'] as Json[]).map((team) => team['id'])).toEqual([third, second, first]);
      expect(all.body['paginator']).toMatchObject({ total_items: 3 });
      expect((all.body['items'] as Json[])[2]).toEqual({
        ...teamRecord({ id: first, name: 'One', owner_id: owner.id }),
        users_count: 1,
        invites_count: 1,
        invites: [invited.body],
        subscription: [a.seat.id],
      });
      const limited = await call(owner, 'GET', '/user/teams?limit=2&sort=ASC');
      expect((limited.body['items'] as Json[]).map((team) => team['id'])).toEqual([first, second]);
      const filtered = await call(owner, 'GET', `/user/teams?filter[Teams.id]=${second}`);
      expect((filtered.body['items'] as Json[]).map((team) => team['id'])).toEqual([second]);

      // An admin sees the team, also once suspended; a plain member does not.
      const joined = await join(a, owner, first);
      expect((await call(joined, 'GET', '/user/teams')).body['items']).toEqual([]);
      await call(owner, 'PUT', `/user/teams/${first}/users/${joined.id}`, { role: 'admin' });
      // An active admin manages the team without can-own-teams eligibility (the guard's second branch).
      expect((await call(joined, 'GET', `/user/teams/${first}`)).body).toMatchObject({ id: first, users_count: 2 });
      await call(owner, 'POST', `/user/teams/${first}/users/${joined.id}/suspend`);
      const asSuspendedAdmin = await call(joined, 'GET', '/user/teams');
      expect((asSuspendedAdmin.body['items'] as Json[]).map((team) => team['id'])).toEqual([first]);
      // Managing needs an active relationship.
      expect((await call(joined, 'GET', `/user/teams/${first}`)).body).toEqual(errorBody('incorrect_data'));
    });
  });

  describe('POST /user/teams/{team_id}/invites', () => {
    it('creates an invite with a generated code, the event, and one invite per email', async () => {
      const a = await arrange();
      const events = collectEvents(s.nats, 'individual_in_team_invite');
      const owner = await eligible(a);
      const teamId = await createTeam(owner);
      const created = await invite(owner, teamId, {
        email: '  Ann@Example.com ',
        subscription_id: a.seat.id,
        user_name: ' Ann ',
        code: 'my-own-code-123',
        resource_id: a.tenant.resourceId,
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        email: 'ann@example.com',
        user_name: 'Ann',
        title: 'Invitation to Crew',
        description: 'Invitation to Crew',
        code: expect.stringMatching(/^[0-9a-f]{40}$/),
        activations_limit: 1,
        team_id: teamId,
        subscription_id: a.seat.id,
        start_date: null,
        end_date: null,
        created_at: anyIsoDate,
      });
      // Found by its random code: NATS is shared by the run's stacks, whose IDs overlap.
      expect(await eventWhere(events, 'code', created.body['code'])).toMatchObject({
        payload: { invite_id: created.body['id'], team_id: teamId, email: 'ann@example.com', inviter_id: owner.id },
      });
      // The header resource is stored; resource_id is only validated.
      expect(
        await community()
          .collection('invites')
          .findOne({ _id: created.body['id'] as never }),
      ).toMatchObject({
        resource_id: a.tenant.resourceId,
      });
    });

    it('answers every documented error', async () => {
      const a = await arrange();
      const owner = await eligible(a);
      const teamId = await createTeam(owner);
      await invite(owner, teamId, { email: 'taken@example.com', subscription_id: a.seat.id });
      const cases: Array<[Json, string]> = [
        [{ email: 'TAKEN@example.com', subscription_id: a.seat.id }, 'email'],
        [{ email: 'not-an-email', subscription_id: a.seat.id }, 'email'],
        [{ email: `${'a'.repeat(49)}@example.com`, subscription_id: a.seat.id }, 'email'],
        [{ subscription_id: a.seat.id }, 'email'],
        [{ email: 'new@example.com' }, 'subscription_id'],
        [{ email: 'new@example.com', subscription_id: '1' }, 'subscription_id'],
        [{ email: 'new@example.com', subscription_id: 987654 }, 'subscription_id'],
        [{ email: 'new@example.com', subscription_id: a.paidSeat.id }, 'subscription_id'],
        [{ email: 'new@example.com', subscription_id: a.seat.id, title: '' }, 'title'],
        [{ email: 'new@example.com', subscription_id: a.seat.id, title: 't'.repeat(129) }, 'title'],
        [{ email: 'new@example.com', subscription_id: a.seat.id, code: 'short' }, 'code'],
        [{ email: 'new@example.com', subscription_id: a.seat.id, code: 'c'.repeat(41) }, 'code'],
        [{ email: 'new@example.com', subscription_id: a.seat.id, resource_id: a.tenant.resourceId + 1 }, 'resource_id'],
      ];
      for (const [body, field] of cases) {
        expect(await invite(owner, teamId, body), JSON.stringify(body)).toMatchObject(fieldRefusal(field));
      }
      expect(await invite(owner, 999_999, { email: 'new@example.com', subscription_id: a.seat.id })).toMatchObject({
        status: 404,
        body: errorBody('team_not_found'),
      });
      expect((await call(owner, 'POST', '/user/teams/abc/invites', { email: 'new@example.com' })).status).toBe(404);
      expect(await call(owner, 'POST', `/user/teams/${teamId}/invites`, { form: { email: 'new@example.com' } })).toMatchObject({
        status: 406,
        body: errorBody('incorrect_data'),
      });
      const stranger = await member(a.tenant);
      expect(await invite(stranger, teamId, { email: 'new@example.com', subscription_id: a.seat.id })).toMatchObject({
        status: 401,
        body: errorBody('incorrect_data'),
      });
      // Nothing of the refusals was stored.
      expect(await community().collection('invites').countDocuments({ team_id: teamId })).toBe(1);
    });

    it('counts seats of a Pricing with users_limit and needs a payment customer on the owner for a paid one', async () => {
      const a = await arrange();
      const owner = await eligible(a);
      const teamId = await createTeam(owner);
      await join(a, owner, teamId, a.singleSeat);
      // The Pricing allows one active relationship: it is taken.
      expect(await invite(owner, teamId, { email: 'late@example.com', subscription_id: a.singleSeat.id })).toMatchObject(
        fieldRefusal('subscription_id'),
      );
      expect((await invite(owner, teamId, { email: 'paid@example.com', subscription_id: a.paidSeat.id })).status).toBe(409);
      // The owner's provider customer, made through billing, lets the paid seat be offered.
      const customer = await call(owner, 'GET', '/user/payment-provider/cardprovider/customer');
      expect(customer.status).toBe(200);
      expect(await invite(owner, teamId, { email: 'paid@example.com', subscription_id: a.paidSeat.id })).toMatchObject({
        status: 201,
        body: { subscription_id: a.paidSeat.id },
      });
    });
  });

  describe('the named operations on a team', () => {
    it('reads, updates and deletes a team', async () => {
      const a = await arrange();
      const owner = await eligible(a);
      const teamId = await createTeam(owner);
      await call(owner, 'PUT', `/user/teams/${teamId}`, { description: 'First' });
      const detail = await call(owner, 'GET', `/user/teams/${teamId}`);
      expect(detail.body).toEqual({
        ...teamRecord({ id: teamId, name: 'Crew', description: 'First', owner_id: owner.id }),
        users_count: 1,
        invites_count: 0,
        invites: [],
        subscription: [],
      });
      const renamed = await call(owner, 'PUT', `/user/teams/${teamId}`, { name: 'Renamed', description: null });
      expect(renamed.body).toEqual(teamRecord({ id: teamId, name: 'Renamed', owner_id: owner.id }));
      expect(await call(owner, 'PUT', `/user/teams/${teamId}`, { name: '' })).toMatchObject(fieldRefusal('name'));
      expect((await call(owner, 'PUT', `/user/teams/${teamId}`, { form: { name: 'x' } })).status).toBe(406);
      expect(await call(owner, 'GET', '/user/teams/999999')).toMatchObject({ status: 404, body: errorBody('team_not_found') });

      await invite(owner, teamId, { email: 'ann@example.com', subscription_id: a.seat.id });
      expect(await call(owner, 'DELETE', `/user/teams/${teamId}`)).toMatchObject({ status: 200, body: { result: true } });
      expect((await call(owner, 'GET', `/user/teams/${teamId}`)).status).toBe(404);
      expect(await community().collection('invites').countDocuments({ team_id: teamId })).toBe(0);
      expect(await community().collection('team_members').findOne({ team_id: teamId })).toMatchObject({ status: 'removed' });
    });

    it('lists, reads, updates, resends and deletes invites; resend has its own guard under both prefixes', async () => {
      const a = await arrange();
      const events = collectEvents(s.nats, 'individual_in_team_invite');
      const owner = await eligible(a);
      const teamId = await createTeam(owner);
      const first = (await invite(owner, teamId, { email: 'ann@example.com', subscription_id: a.seat.id })).body;
      const second = (await invite(owner, teamId, { email: 'bob@example.com', subscription_id: a.seat.id })).body;
      const path = `/user/teams/${teamId}/invites`;

      // Newest first, like the team list.
      const page = await call(owner, 'GET', `${path}?limit=1&page=2`);
      expect(page.body).toMatchObject({ items: [first], paginator: { total_items: 2 } });
      expect((await call(owner, 'GET', `${path}/${first['id'] as number}`)).body).toEqual(first);
      for (const id of ['999999', 'abc']) {
        expect(await call(owner, 'GET', `${path}/${id}`)).toMatchObject({ status: 404, body: errorBody('invite_not_found') });
      }
      const updated = await call(owner, 'PUT', `${path}/${first['id'] as number}`, {
        title: 'Welcome',
        user_name: ' Ann ',
        email: 'x@y.z',
      });
      expect(updated.body).toEqual({ ...first, title: 'Welcome', user_name: 'Ann' });
      expect(await call(owner, 'PUT', `${path}/${first['id'] as number}`, { title: '' })).toMatchObject(fieldRefusal('title'));

      const resend = (who: Member, prefix = '/user') =>
        call(who, 'POST', `${prefix}/teams/${teamId}/invites/${first['id'] as number}/resend`);
      expect((await resend(owner)).body).toEqual({ result: true });
      expect((await resend(owner, '/admin')).body).toEqual({ result: true });
      // The global admin may resend (not read); an ordinary member of the resource may do neither.
      const globalAdmin = await member(a.tenant, 'admin');
      expect((await resend(globalAdmin, '/admin')).body).toEqual({ result: true });
      expect((await call(globalAdmin, 'GET', `${path}/${first['id'] as number}`)).body).toEqual(errorBody('incorrect_data'));
      const stranger = await member(a.tenant);
      for (const prefix of ['/user', '/admin']) expect((await resend(stranger, prefix)).body).toEqual(errorBody('incorrect_data'));
      // One event at creation and one per resend: no dedupe.
      await expect.poll(() => events.filter((event) => (event['payload'] as Json)['code'] === first['code']).length).toBe(4);

      expect((await call(owner, 'DELETE', `${path}/${first['id'] as number}`)).body).toEqual({ result: true });
      expect((await call(owner, 'GET', `${path}/${first['id'] as number}`)).status).toBe(404);
      expect((await call(owner, 'GET', path)).body['items']).toEqual([second]);
    });

    it('manages members: non-owners listed, one read, role, status and Pricing changed, suspended, removed', async () => {
      const a = await arrange();
      const owner = await eligible(a);
      const teamId = await createTeam(owner);
      const joined = await join(a, owner, teamId);
      const path = `/user/teams/${teamId}/users`;
      const record = (user: Member, fields: Json = {}) => ({
        id: expect.any(Number),
        team_id: teamId,
        user_id: user.id,
        role: 'user',
        status: 'active',
        subscription_id: a.seat.id,
        created_at: anyIsoDate,
        updated_at: anyIsoDate,
        ...fields,
      });

      expect((await call(owner, 'GET', path)).body).toMatchObject({ items: [record(joined)], paginator: { total_items: 1 } });
      expect((await call(owner, 'GET', `${path}/${owner.id}`)).body).toEqual(record(owner, { role: 'owner', subscription_id: null }));
      for (const id of [owner.id, 999_999]) {
        expect(await call(owner, 'PUT', `${path}/${id}`, { role: 'admin' })).toMatchObject({
          status: 404,
          body: errorBody('team_user_not_found'),
        });
      }
      for (const [body, field] of [
        [{ role: 'owner' }, 'role'],
        [{ role: null }, 'role'],
        [{ status: 'removed' }, 'status'],
        [{ subscription_id: 'one' }, 'subscription_id'],
        [{ subscription_id: -3 }, 'subscription_id'],
      ] as const) {
        expect(await call(owner, 'PUT', `${path}/${joined.id}`, body), JSON.stringify(body)).toMatchObject(fieldRefusal(field));
      }
      expect((await call(owner, 'PUT', `${path}/${joined.id}`, { role: 'admin', subscription_id: null })).body).toEqual(
        record(joined, { role: 'admin', subscription_id: null }),
      );
      expect((await call(owner, 'POST', `${path}/${joined.id}/suspend`)).body).toEqual(
        record(joined, { role: 'admin', status: 'suspended', subscription_id: null }),
      );
      expect((await call(owner, 'DELETE', `${path}/${joined.id}`)).body).toMatchObject({ status: 'removed' });
      expect((await call(owner, 'GET', path)).body['items']).toEqual([]);
      // A removed relationship still reads (history); the owner's cannot be removed.
      expect((await call(owner, 'GET', `${path}/${joined.id}`)).body).toMatchObject({ status: 'removed' });
      expect((await call(owner, 'DELETE', `${path}/${owner.id}`)).status).toBe(404);
    });
  });

  it("keeps resource B's members out of resource A's teams and invitations", async () => {
    const a = await arrange();
    const b = await arrange();
    const owner = await eligible(a);
    const teamId = await createTeam(owner);
    const joined = await join(a, owner, teamId);
    const pending = (await invite(owner, teamId, { email: 'ann@example.com', subscription_id: a.seat.id })).body;
    // An owner of teams in B, and a member of B with the same email as A's invite.
    const outsider = await eligible(b);
    const before = await community()
      .collection('teams')
      .findOne({ _id: teamId as never });
    const paths: Array<[string, string, Json?]> = [
      ['GET', `/user/teams/${teamId}`],
      ['PUT', `/user/teams/${teamId}`, { name: 'Taken' }],
      ['DELETE', `/user/teams/${teamId}`],
      ['GET', `/user/teams/${teamId}/invites`],
      ['POST', `/user/teams/${teamId}/invites`, { email: outsider.email, subscription_id: b.seat.id }],
      ['GET', `/user/teams/${teamId}/invites/${pending['id'] as number}`],
      ['PUT', `/user/teams/${teamId}/invites/${pending['id'] as number}`, { title: 'Taken' }],
      ['DELETE', `/user/teams/${teamId}/invites/${pending['id'] as number}`],
      ['POST', `/user/teams/${teamId}/invites/${pending['id'] as number}/resend`],
      ['POST', `/admin/teams/${teamId}/invites/${pending['id'] as number}/resend`],
      ['GET', `/user/teams/${teamId}/users`],
      ['GET', `/user/teams/${teamId}/users/${joined.id}`],
      ['PUT', `/user/teams/${teamId}/users/${joined.id}`, { role: 'admin' }],
      ['DELETE', `/user/teams/${teamId}/users/${joined.id}`],
      ['POST', `/user/teams/${teamId}/users/${joined.id}/suspend`],
    ];
    for (const [method, path, body] of paths) {
      const response = await call(outsider, method, path, body ?? (method === 'PUT' || method === 'POST' ? {} : undefined));
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(response.body).toEqual(errorBody('incorrect_data'));
    }
    expect((await call(outsider, 'GET', '/user/teams')).body['items']).toEqual([]);
    // A's invite code is not activated from B.
    const activation = await call(outsider, 'POST', '/invite-activation', { invite: pending['code'] });
    expect(activation.status).toBe(422);
    expect(
      await community()
        .collection('teams')
        .findOne({ _id: teamId as never }),
    ).toEqual(before);
    expect(await community().collection('invites').countDocuments({ team_id: teamId })).toBe(2);
    expect(await community().collection('team_members').countDocuments({ team_id: teamId, status: 'active' })).toBe(2);
  });
});
