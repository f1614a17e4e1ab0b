import type { Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { catalogKit, type Json } from './catalog-support.js';
import { sessionResult } from './recovery-support.js';
import { anyIsoDate, anyRequestId, collectEvents, eventWhere, useStack } from './support.js';
import { passBody, ticketingKit } from './ti-events-support.js';

/**
 * The named pass operations of document 2 F (OPERATIONS.md 133-141, 155-156; docs/adr/0152,
 * 0153) through the gateway: owners' reads and changes, invitations, event access and the
 * pass-token sign-in, and that nothing crosses resources.
 */
describe('passes', () => {
  const s = useStack();
  const kit = catalogKit(s);
  const ticketing = ticketingKit(s);
  const errorBody = (code: string) => ({ error: code, error_description: expect.any(String), req_guid: anyRequestId });
  const result = (response: { status: number; body: unknown }) => ({ status: response.status, body: response.body });

  /** A ticketing resource with an event, a ticket (unassign limit 1) and an owner with two passes. */
  async function arrange(unassignLimit = 1) {
    const tenant = await ticketing.tenant();
    const owner = await kit.signedInMember(tenant);
    const event = await ticketing.event(tenant, 'Launch');
    const ticket = await ticketing.ticket(event.id, 'General', { unassignLimit });
    const [first, second] = await ticketing.buy(tenant, ticket.id, owner.id, 2);
    const headers = { resource: tenant.publicKey, token: owner.token };
    return { tenant, owner, event, ticket, first: first!, second: second!, headers };
  }
  type Arranged = Awaited<ReturnType<typeof arrange>>;

  const call = (headers: Record<string, string>, method: string, path: string, json?: unknown) => s.api(path, { method, headers, json });
  const memberOf = async (tenant: Tenant) => {
    const member = await kit.signedInMember(tenant);
    return { ...member, headers: { resource: tenant.publicKey, token: member.token } };
  };

  const invitation = (fields: Json): Json => ({
    pass_id: expect.any(Number),
    kind: 'invite',
    status: 'pending',
    email: null,
    code: null,
    user_id: null,
    created_at: anyIsoDate,
    assigned_at: null,
    ...fields,
  });

  describe('GET /user/pass/{id}', () => {
    it('reads an owned pass with its invitation; another member’s, another resource’s or a malformed ID is 404', async () => {
      const a = await arrange();
      const response = await call(a.headers, 'GET', `/user/pass/${a.first}`);
      expect(result(response)).toEqual({ status: 200, body: { ...passBody(a.first, a.ticket, a.owner.id), invitation: null } });

      const stranger = await memberOf(a.tenant);
      const elsewhere = await ticketing.tenant();
      const inB = { resource: elsewhere.publicKey, token: await kit.signIn(elsewhere, a.owner) };
      for (const [headers, id] of [
        [stranger.headers, a.first],
        [inB, a.first],
        [a.headers, 'abc'],
        [a.headers, 999_999_999],
      ] as const) {
        expect(result(await call(headers, 'GET', `/user/pass/${id}`))).toEqual({ status: 404, body: errorBody('ti_event_pass_not_found') });
      }
      expect(result(await s.api(`/user/pass/${a.first}`, { headers: { resource: a.tenant.publicKey } }))).toEqual({
        status: 401,
        body: errorBody('auth_failed'),
      });
    });
  });

  describe('PUT /user/pass/{id}/assign, GET /user/ti-event/{id}/access, GET /user/pass/{id}/unassign', () => {
    it('assigns an unassigned pass; assignment, not ownership, gives event access', async () => {
      const a = await arrange();
      const attendee = await memberOf(a.tenant);
      const assignedEvents = collectEvents(s.nats, 'ti_event_pass_assigned');

      expect(result(await call(a.headers, 'GET', `/user/ti-event/${a.event.id}/access`))).toEqual({
        status: 200,
        body: { access: false, pass_ids: [] },
      });
      const assigned = await call(a.headers, 'PUT', `/user/pass/${a.first}/assign`, { assign_id: attendee.id });
      expect(result(assigned)).toEqual({
        status: 200,
        body: {
          ...passBody(a.first, a.ticket, a.owner.id, attendee.id),
          invitation: invitation({ pass_id: a.first, kind: 'direct', status: 'assigned', user_id: attendee.id, assigned_at: anyIsoDate }),
        },
      });
      const event = await eventWhere(assignedEvents, 'pass_id', a.first);
      expect(event['payload']).toEqual({
        pass_id: a.first,
        ti_event_id: a.event.id,
        ticket_id: a.ticket.id,
        owner_id: a.owner.id,
        assign_id: attendee.id,
        email: null,
        authorization_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        expires_at: anyIsoDate,
      });
      expect(result(await call(attendee.headers, 'GET', `/user/ti-event/${a.event.id}/access`))).toEqual({
        status: 200,
        body: { access: true, pass_ids: [a.first] },
      });
      // The owner still has no access: owning is not attending.
      expect((await call(a.headers, 'GET', `/user/ti-event/${a.event.id}/access`)).body).toEqual({ access: false, pass_ids: [] });
      // The owner may assign a pass to themself.
      const self = await call(a.headers, 'PUT', `/user/pass/${a.second}/assign`, { assign_id: a.owner.id });
      expect(self.status).toBe(200);
      expect((await call(a.headers, 'GET', `/user/ti-event/${a.event.id}/access`)).body).toEqual({ access: true, pass_ids: [a.second] });
      // GET /user shows the attendee's assigned pass.
      expect((await call(attendee.headers, 'GET', '/user')).body).toEqual(
        expect.objectContaining({ assigned_tickets: [passBody(a.first, a.ticket, a.owner.id, attendee.id)] }),
      );
    });

    it('refuses an assigned pass, a non-member, a bad assign_id and a body that is not JSON', async () => {
      const a = await arrange();
      const attendee = await memberOf(a.tenant);
      const outsider = await memberOf(await ticketing.tenant());
      await call(a.headers, 'PUT', `/user/pass/${a.first}/assign`, { assign_id: attendee.id });

      expect(result(await call(a.headers, 'PUT', `/user/pass/${a.first}/assign`, { assign_id: a.owner.id }))).toEqual({
        status: 409,
        body: errorBody('ti_event_pass_assigned'),
      });
      for (const assignId of [outsider.id, 999_999_999, '5', 0, -1, 1.5, null]) {
        expect(result(await call(a.headers, 'PUT', `/user/pass/${a.second}/assign`, { assign_id: assignId }))).toEqual({
          status: 409,
          body: errorBody('invalid_assign_id'),
        });
      }
      const form = await s.api(`/user/pass/${a.second}/assign`, {
        method: 'PUT',
        headers: a.headers,
        form: { assign_id: String(a.owner.id) },
      });
      expect(result(form)).toEqual({ status: 406, body: errorBody('incorrect_data') });
      expect(result(await call(attendee.headers, 'PUT', `/user/pass/${a.second}/assign`, { assign_id: attendee.id }))).toEqual({
        status: 404,
        body: errorBody('ti_event_pass_not_found'),
      });
    });

    it('answers parallel assignments of one pass with one winner', async () => {
      const a = await arrange();
      const members = await Promise.all(Array.from({ length: 6 }, () => memberOf(a.tenant)));
      const responses = await Promise.all(
        members.map((member) => call(a.headers, 'PUT', `/user/pass/${a.first}/assign`, { assign_id: member.id })),
      );
      expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    });

    it('inspects the unassign limitation', async () => {
      const a = await arrange(1);
      const attendee = await memberOf(a.tenant);
      const limit = (id: number) => call(a.headers, 'GET', `/user/pass/${id}/unassign`);
      expect(result(await limit(a.first))).toEqual({
        status: 200,
        body: { pass_id: a.first, can_unassign: false, unassign_limit: 1, unassign_count: 0 },
      });
      await call(a.headers, 'PUT', `/user/pass/${a.first}/assign`, { assign_id: attendee.id });
      expect((await limit(a.first)).body).toEqual({ pass_id: a.first, can_unassign: true, unassign_limit: 1, unassign_count: 0 });
      await call(a.headers, 'DELETE', `/user/pass/${a.first}/invite`);
      await call(a.headers, 'PUT', `/user/pass/${a.first}/assign`, { assign_id: attendee.id });
      expect((await limit(a.first)).body).toEqual({ pass_id: a.first, can_unassign: false, unassign_limit: 1, unassign_count: 1 });
      expect(result(await call(attendee.headers, 'GET', `/user/pass/${a.first}/unassign`))).toEqual({
        status: 404,
        body: errorBody('ti_event_pass_not_found'),
      });
    });

    it('answers event reads for a missing, inactive or other resource’s event with 404 ti_events_not_found', async () => {
      const a = await arrange();
      const retired = await ticketing.event(a.tenant, 'Retired', { active: false });
      const foreign = await ticketing.event(await ticketing.tenant(), 'Foreign');
      for (const id of [retired.id, foreign.id, 'abc', 999_999_999]) {
        for (const path of [`/user/ti-event/${id}/access`, `/user/ti-event/${id}/passes`]) {
          expect({ path, ...result(await call(a.headers, 'GET', path)) }).toEqual({
            path,
            status: 404,
            body: errorBody('ti_events_not_found'),
          });
        }
      }
    });
  });

  describe('GET /user/ti-event/{id}/passes', () => {
    it('lists every pass of the event, whoever owns or attends it, paginated', async () => {
      const a = await arrange();
      const other = await memberOf(a.tenant);
      const [third] = await ticketing.buy(a.tenant, a.ticket.id, other.id);
      const first = await call(other.headers, 'GET', `/user/ti-event/${a.event.id}/passes`);
      expect(result(first)).toEqual({
        status: 200,
        body: {
          items: [passBody(a.first, a.ticket, a.owner.id), passBody(a.second, a.ticket, a.owner.id), passBody(third!, a.ticket, other.id)],
          paginator: { current_page: 1, page: 1, total_pages: 1, total_items: 3, limit: 10 },
        },
      });
      const page = await s.api(`/user/ti-event/${a.event.id}/passes`, { headers: a.headers, query: 'page=2&limit=2' });
      expect(page.body).toEqual({
        items: [passBody(third!, a.ticket, other.id)],
        paginator: { current_page: 2, page: 2, total_pages: 2, total_items: 3, limit: 2 },
      });
    });
  });

  describe('POST and DELETE /user/pass/{id}/invite, the recipient’s validation and activation', () => {
    it('invites an attendee by email, who previews and activates the code and becomes the attendee', async () => {
      const a = await arrange();
      const attendee = await memberOf(a.tenant);
      const inviteEvents = collectEvents(s.nats, 'ti_event_pass_invite');
      const assignedEvents = collectEvents(s.nats, 'ti_event_pass_assigned');

      const invited = await call(a.headers, 'POST', `/user/pass/${a.first}/invite`, { email: ` ${attendee.email.toUpperCase()} ` });
      const code = (invited.body as Json)['code'] as string;
      expect(result(invited)).toEqual({
        status: 201,
        body: invitation({ pass_id: a.first, email: attendee.email, code: expect.stringMatching(/^[0-9a-f]{40}$/) }),
      });
      expect((await eventWhere(inviteEvents, 'pass_id', a.first))['payload']).toEqual({
        pass_id: a.first,
        ti_event_id: a.event.id,
        owner_id: a.owner.id,
        email: attendee.email,
        code,
      });
      expect((await call(a.headers, 'GET', `/user/pass/${a.first}`)).body).toEqual({
        ...passBody(a.first, a.ticket, a.owner.id),
        invitation: invitation({ pass_id: a.first, email: attendee.email, code }),
      });

      const preview = await s.api('/ti-event/pass/invite-validation', {
        headers: { resource: a.tenant.publicKey },
        form: { code: code.toUpperCase() },
      });
      expect(result(preview)).toEqual({
        status: 200,
        body: {
          result: true,
          email: attendee.email,
          pass_id: a.first,
          ti_event: expect.objectContaining({ id: a.event.id, title: 'Launch' }),
          ticket: { id: a.ticket.id, ti_event_id: a.event.id, title: 'General', description: null, price: 2500, currency: 'USD' },
        },
      });

      const activated = await call(attendee.headers, 'POST', '/ti-event/pass/invite-activation', { code });
      const activatedPass = {
        ...passBody(a.first, a.ticket, a.owner.id, attendee.id),
        invitation: invitation({
          pass_id: a.first,
          email: attendee.email,
          code,
          status: 'assigned',
          user_id: attendee.id,
          assigned_at: anyIsoDate,
        }),
      };
      expect(result(activated)).toEqual({ status: 200, body: { result: true, pass: activatedPass } });
      expect((await eventWhere(assignedEvents, 'pass_id', a.first))['payload']).toEqual(
        expect.objectContaining({ assign_id: attendee.id, email: attendee.email }),
      );
      // A repeat by the attendee answers the same; the code previews no more.
      expect((await call(attendee.headers, 'POST', '/ti-event/pass/invite-activation', { code })).body).toEqual({
        result: true,
        pass: activatedPass,
      });
      expect(
        result(await s.api('/ti-event/pass/invite-validation', { headers: { resource: a.tenant.publicKey }, json: { code } })),
      ).toEqual({
        status: 409,
        body: errorBody('invalid_invite'),
      });
      expect((await call(attendee.headers, 'GET', `/user/ti-event/${a.event.id}/access`)).body).toEqual({
        access: true,
        pass_ids: [a.first],
      });
    });

    it('refuses bad emails, a second invitation, and codes that are unknown, used, for another email or of another resource', async () => {
      const a = await arrange();
      const attendee = await memberOf(a.tenant);
      const stranger = await memberOf(a.tenant);
      for (const email of ['', 'not-an-email', 42]) {
        expect(result(await call(a.headers, 'POST', `/user/pass/${a.first}/invite`, { email }))).toEqual({
          status: 409,
          body: errorBody('invalid_email'),
        });
      }
      expect(result(await s.api(`/user/pass/${a.first}/invite`, { method: 'POST', headers: a.headers, raw: 'nope' }))).toEqual({
        status: 406,
        body: errorBody('incorrect_data'),
      });
      const code = (await call(a.headers, 'POST', `/user/pass/${a.first}/invite`, { email: attendee.email })).body['code'] as string;
      expect(result(await call(a.headers, 'POST', `/user/pass/${a.first}/invite`, { email: stranger.email }))).toEqual({
        status: 409,
        body: errorBody('ti_event_pass_assigned'),
      });
      expect(result(await call(a.headers, 'PUT', `/user/pass/${a.first}/assign`, { assign_id: stranger.id }))).toEqual({
        status: 409,
        body: errorBody('ti_event_pass_assigned'),
      });

      const b = await ticketing.tenant();
      const inB = { resource: b.publicKey, token: await kit.signIn(b, attendee) };
      for (const [headers, body] of [
        [stranger.headers, { code }],
        [attendee.headers, { code: 'unknown-code' }],
        [attendee.headers, {}],
        [inB, { code }],
      ] as const) {
        expect(result(await call(headers, 'POST', '/ti-event/pass/invite-activation', body))).toEqual({
          status: 422,
          body: errorBody('invalid_invite'),
        });
      }
      for (const [resource, body] of [
        [a.tenant.publicKey, { code: 'unknown-code' }],
        [a.tenant.publicKey, {}],
        [b.publicKey, { code }],
      ] as const) {
        const preview = await s.api('/ti-event/pass/invite-validation', { headers: { resource }, json: body });
        expect(result(preview)).toEqual({ status: 409, body: errorBody('invalid_invite') });
      }
      // Nothing changed for the pass of A.
      expect((await call(a.headers, 'GET', `/user/pass/${a.first}`)).body).toEqual({
        ...passBody(a.first, a.ticket, a.owner.id),
        invitation: invitation({ pass_id: a.first, email: attendee.email, code }),
      });
    });

    it('withdraws a pending invitation freely, and takes a pass back within the ticket’s unassign limit', async () => {
      const a = await arrange(1);
      const attendee = await memberOf(a.tenant);
      const removed = collectEvents(s.nats, 'ti_event_pass_unassigned');
      const code = (await call(a.headers, 'POST', `/user/pass/${a.first}/invite`, { email: attendee.email })).body['code'] as string;
      const withdrawn = await call(a.headers, 'DELETE', `/user/pass/${a.first}/invite`);
      expect(result(withdrawn)).toEqual({ status: 200, body: { ...passBody(a.first, a.ticket, a.owner.id), invitation: null } });
      expect(result(await call(attendee.headers, 'POST', '/ti-event/pass/invite-activation', { code }))).toEqual({
        status: 422,
        body: errorBody('invalid_invite'),
      });
      expect(result(await call(a.headers, 'DELETE', `/user/pass/${a.first}/invite`))).toEqual({
        status: 404,
        body: errorBody('ti_event_pass_invite_not_found'),
      });

      // Assigned, then taken back: once (the limit), then no more.
      const again = (await call(a.headers, 'POST', `/user/pass/${a.first}/invite`, { email: attendee.email })).body['code'] as string;
      await call(attendee.headers, 'POST', '/ti-event/pass/invite-activation', { code: again });
      const takenBack = await call(a.headers, 'DELETE', `/user/pass/${a.first}/invite`);
      expect(result(takenBack)).toEqual({ status: 200, body: { ...passBody(a.first, a.ticket, a.owner.id), invitation: null } });
      expect((await eventWhere(removed, 'assign_id', attendee.id))['payload']).toEqual({
        pass_id: a.first,
        owner_id: a.owner.id,
        assign_id: attendee.id,
        email: attendee.email,
        kind: 'invite',
      });
      expect((await call(attendee.headers, 'GET', `/user/ti-event/${a.event.id}/access`)).body).toEqual({ access: false, pass_ids: [] });
      await call(a.headers, 'PUT', `/user/pass/${a.first}/assign`, { assign_id: attendee.id });
      expect(result(await call(a.headers, 'DELETE', `/user/pass/${a.first}/invite`))).toEqual({
        status: 409,
        body: errorBody('ti_event_pass_unassign_limit'),
      });
      expect((await call(attendee.headers, 'GET', `/user/ti-event/${a.event.id}/access`)).body).toEqual({
        access: true,
        pass_ids: [a.first],
      });
      expect(result(await call(attendee.headers, 'DELETE', `/user/pass/${a.first}/invite`))).toEqual({
        status: 404,
        body: errorBody('ti_event_pass_not_found'),
      });
    });
  });

  describe('PUT /user/pass/{id}/extra', () => {
    it('replaces the attendee data as a whole; refuses what is not an object or too large', async () => {
      const a = await arrange();
      const first = await call(a.headers, 'PUT', `/user/pass/${a.first}/extra`, { extra: { seat: 'A12', diet: ['vegan'] } });
      expect(result(first)).toEqual({
        status: 200,
        body: { ...passBody(a.first, a.ticket, a.owner.id, null, { seat: 'A12', diet: ['vegan'] }), invitation: null },
      });
      const second = await call(a.headers, 'PUT', `/user/pass/${a.first}/extra`, { extra: { badge: 'Ada' } });
      expect(second.body).toEqual({ ...passBody(a.first, a.ticket, a.owner.id, null, { badge: 'Ada' }), invitation: null });
      for (const extra of [null, 'text', [1, 2], undefined, { big: 'x'.repeat(17_000) }]) {
        expect(result(await call(a.headers, 'PUT', `/user/pass/${a.first}/extra`, { extra }))).toEqual({
          status: 409,
          body: errorBody('invalid_extra'),
        });
      }
      expect(result(await s.api(`/user/pass/${a.first}/extra`, { method: 'PUT', headers: a.headers }))).toEqual({
        status: 406,
        body: errorBody('incorrect_data'),
      });
      const stranger = await memberOf(a.tenant);
      expect(result(await call(stranger.headers, 'PUT', `/user/pass/${a.first}/extra`, { extra: {} }))).toEqual({
        status: 404,
        body: errorBody('ti_event_pass_not_found'),
      });
      expect((await call(a.headers, 'GET', `/user/pass/${a.first}`)).body).toEqual(second.body);
    });
  });

  describe('POST /ti-event/ticket/pass/authorization', () => {
    async function assignedWithToken(a: Arranged) {
      const attendee = await memberOf(a.tenant);
      const assignedEvents = collectEvents(s.nats, 'ti_event_pass_assigned');
      await call(a.headers, 'PUT', `/user/pass/${a.first}/assign`, { assign_id: attendee.id });
      const token = (await eventWhere(assignedEvents, 'pass_id', a.first))['payload'] as { authorization_token: string };
      return { attendee, token: token.authorization_token };
    }

    it('signs the attendee in with the session result of sign-in, without a member token', async () => {
      const a = await arrange();
      const { attendee, token } = await assignedWithToken(a);
      const exchange = await s.api('/ti-event/ticket/pass/authorization', {
        headers: { resource: a.tenant.publicKey },
        json: { authorization_token: token },
      });
      expect(result(exchange)).toEqual({ status: 200, body: sessionResult(attendee.id, attendee.email, true) });
      const session = { resource: a.tenant.publicKey, token: exchange.body['token'] as string };
      expect((await call(session, 'GET', `/user/ti-event/${a.event.id}/access`)).body).toEqual({ access: true, pass_ids: [a.first] });
      // Form fields work too, and the token stays good while the assignment lasts.
      const form = await s.api('/ti-event/ticket/pass/authorization', {
        headers: { resource: a.tenant.publicKey },
        form: { authorization_token: token },
      });
      expect(form.status).toBe(200);
      const stored = JSON.stringify(await s.db('community').collection('ti_event_pass_tokens').find().toArray());
      expect(stored).not.toContain(token);
    });

    it('answers 401 authorization_fail for an unknown token, another resource, an ended assignment or a blocked attendee', async () => {
      const a = await arrange();
      const { attendee, token } = await assignedWithToken(a);
      const exchange = (resource: string, body: Json) =>
        s.api('/ti-event/ticket/pass/authorization', { headers: { resource }, json: body });
      const b = await ticketing.tenant();
      for (const [resource, body] of [
        [a.tenant.publicKey, { authorization_token: 'unknown' }],
        [a.tenant.publicKey, {}],
        [b.publicKey, { authorization_token: token }],
      ] as const) {
        expect(result(await exchange(resource, body))).toEqual({ status: 401, body: errorBody('authorization_fail') });
      }
      expect(result(await exchange('no-such-resource', { authorization_token: token }))).toEqual({
        status: 404,
        body: errorBody('resource_not_exists'),
      });

      // A suspended attendee may not sign in with it.
      await s
        .db('identity')
        .collection('relationships')
        .updateOne({ resource_id: a.tenant.resourceId, user_id: attendee.id }, { $set: { status: 'suspended' } });
      expect(result(await exchange(a.tenant.publicKey, { authorization_token: token }))).toEqual({
        status: 401,
        body: errorBody('authorization_fail'),
      });
      await s
        .db('identity')
        .collection('relationships')
        .updateOne({ resource_id: a.tenant.resourceId, user_id: attendee.id }, { $set: { status: 'active' } });
      expect((await exchange(a.tenant.publicKey, { authorization_token: token })).status).toBe(200);

      // Taken back: the token stops working.
      await call(a.headers, 'DELETE', `/user/pass/${a.first}/invite`);
      expect(result(await exchange(a.tenant.publicKey, { authorization_token: token }))).toEqual({
        status: 401,
        body: errorBody('authorization_fail'),
      });
    });
  });
});
