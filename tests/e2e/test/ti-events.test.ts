import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { catalogKit } from './catalog-support.js';
import { anyRequestId, useStack } from './support.js';
import { eventBody, passBody, ticketBody, ticketingKit } from './ti-events-support.js';

/**
 * Events and tickets (document 2 F, in spec) through the gateway: GET /ti-events, GET
 * /ti-event/{id}/tickets, GET /user/ti-events, GET /user/ti-event-tickets, all behind the
 * resource setting `ti_events_system`.
 */
describe('events and tickets', () => {
  const s = useStack();
  const kit = catalogKit(s);
  const ticketing = ticketingKit(s);
  const errorBody = (code: string) => ({ error: code, error_description: expect.any(String), req_guid: anyRequestId });
  const guest = (publicKey: string) => ({ resource: publicKey });

  describe('GET /ti-events and GET /ti-event/{id}/tickets', () => {
    it('lists the active events of the resource, and the listed tickets of one with what is left', async () => {
      const tenant = await ticketing.tenant();
      const other = await ticketing.tenant();
      const launch = await ticketing.event(tenant, 'Launch night', {
        description: 'Doors at seven',
        photo: ['https://img.example/launch.jpg'],
        startDate: '2031-05-01T19:00:00.000Z',
        endDate: '2031-05-01T23:00:00.000Z',
      });
      const gala = await ticketing.event(tenant, 'Gala');
      await ticketing.event(tenant, 'Retired', { active: false });
      await ticketing.event(other, 'Elsewhere');
      const general = await ticketing.ticket(launch.id, 'General', { quantity: 5 });
      const vip = await ticketing.ticket(launch.id, 'VIP', { quantity: 2, price: 9900, currency: 'EUR', description: 'Front rows' });
      await ticketing.ticket(launch.id, 'Crew', { private: true });
      await ticketing.ticket(launch.id, 'Early bird', { active: false });

      const events = await s.api('/ti-events', { headers: guest(tenant.publicKey) });
      expect({ status: events.status, body: events.body }).toEqual({
        status: 200,
        body: {
          items: [eventBody(launch, { start_date: '2031-05-01T19:00:00.000Z', end_date: '2031-05-01T23:00:00.000Z' }), eventBody(gala)],
        },
      });
      expect(events.body['items']).toEqual(
        expect.arrayContaining([expect.objectContaining({ description: 'Doors at seven', photo: ['https://img.example/launch.jpg'] })]),
      );

      const buyer = await kit.signedInMember(tenant);
      await ticketing.buy(tenant, general.id, buyer.id, 3);
      const tickets = await s.api(`/ti-event/${launch.id}/tickets`, { headers: guest(tenant.publicKey) });
      expect({ status: tickets.status, body: tickets.body }).toEqual({
        status: 200,
        body: { items: [ticketBody(general, 2), ticketBody(vip, 2)] },
      });
      // An event without tickets is an empty list.
      expect((await s.api(`/ti-event/${gala.id}/tickets`, { headers: guest(tenant.publicKey) })).body).toEqual({ items: [] });
      // A signed-in member reads the same.
      expect((await s.api('/ti-events', { headers: { ...guest(tenant.publicKey), token: buyer.token } })).body).toEqual(events.body);
    });

    it('clamps `available` at zero when an operator lowers the quantity below what was sold', async () => {
      const tenant = await ticketing.tenant();
      const event = await ticketing.event(tenant, 'Small room');
      const ticket = await ticketing.ticket(event.id, 'Seat', { quantity: 4 });
      await ticketing.buy(tenant, ticket.id, (await kit.signedInMember(tenant)).id, 4);
      const lowered = await ticketing.ticket(event.id, 'Seat', { quantity: 2 });
      const tickets = await s.api(`/ti-event/${event.id}/tickets`, { headers: guest(tenant.publicKey) });
      expect(tickets.body).toEqual({ items: [ticketBody(lowered, 0)] });
    });

    it('answers an unknown, inactive, malformed or other resource’s event with 404 ti_events_not_found', async () => {
      const tenant = await ticketing.tenant();
      const other = await ticketing.tenant();
      const retired = await ticketing.event(tenant, 'Retired', { active: false });
      const foreign = await ticketing.event(other, 'Foreign');
      for (const id of [retired.id, foreign.id, 999_999_999, 'abc', '0']) {
        const response = await s.api(`/ti-event/${id}/tickets`, { headers: guest(tenant.publicKey) });
        expect({ id, status: response.status, body: response.body }).toEqual({ id, status: 404, body: errorBody('ti_events_not_found') });
      }
    });

    it('answers 409 ti_events / ti_event_tickets when a read fails, and 404 resource_not_exists for an unknown key', async () => {
      const tenant = await ticketing.tenant();
      const event = await ticketing.event(tenant, 'Broken');
      // A stored date no one can read: the read fails inside community.
      await s
        .db('community')
        .collection('ti_events')
        .updateOne({ _id: event.id as never }, { $set: { created_at: 'not a date' } });
      const events = await s.api('/ti-events', { headers: guest(tenant.publicKey) });
      expect({ status: events.status, body: events.body }).toEqual({ status: 409, body: errorBody('ti_events') });

      const fine = await ticketing.event(tenant, 'Fine');
      const ticket = await ticketing.ticket(fine.id, 'Seat');
      await s
        .db('community')
        .collection('ti_event_tickets')
        .updateOne({ _id: ticket.id as never }, { $set: { updated_at: 'never' } });
      const tickets = await s.api(`/ti-event/${fine.id}/tickets`, { headers: guest(tenant.publicKey) });
      expect({ status: tickets.status, body: tickets.body }).toEqual({ status: 409, body: errorBody('ti_event_tickets') });

      for (const path of ['/ti-events', `/ti-event/${fine.id}/tickets`]) {
        const response = await s.api(path, { headers: guest('no-such-resource') });
        expect({ status: response.status, body: response.body }).toEqual({ status: 404, body: errorBody('resource_not_exists') });
      }
    });
  });

  describe('GET /user/ti-events and GET /user/ti-event-tickets', () => {
    it('lists events with owned passes, and groups owned and assigned passes by event and ticket', async () => {
      const tenant = await ticketing.tenant();
      const owner = await kit.signedInMember(tenant);
      const attendee = await kit.signedInMember(tenant);
      const launch = await ticketing.event(tenant, 'Launch');
      const general = await ticketing.ticket(launch.id, 'General');
      const vip = await ticketing.ticket(launch.id, 'VIP');
      const dinner = await ticketing.ticket((await ticketing.event(tenant, 'Gala')).id, 'Dinner');
      const [g1, g2] = await ticketing.buy(tenant, general.id, owner.id, 2);
      const [v1] = await ticketing.buy(tenant, vip.id, owner.id);
      const [d1] = await ticketing.buy(tenant, dinner.id, attendee.id);
      // The Gala is over: its passes still show.
      const gala = await ticketing.event(tenant, 'Gala', { active: false });
      // The owner gives one general pass to the attendee.
      const assigned = await s.api(`/user/pass/${g2}/assign`, {
        method: 'PUT',
        headers: { resource: tenant.publicKey, token: owner.token },
        json: { assign_id: attendee.id },
      });
      expect(assigned.status).toBe(200);

      const member = (token: string) => ({ resource: tenant.publicKey, token });
      const ownerEvents = await s.api('/user/ti-events', { headers: member(owner.token) });
      expect({ status: ownerEvents.status, body: ownerEvents.body }).toEqual({ status: 200, body: { items: [eventBody(launch)] } });
      // Attending Launch does not make it the attendee's event; owning the Gala pass does (inactive included).
      expect((await s.api('/user/ti-events', { headers: member(attendee.token) })).body).toEqual({ items: [eventBody(gala)] });

      const ownerGroups = await s.api('/user/ti-event-tickets', { headers: member(owner.token) });
      expect({ status: ownerGroups.status, body: ownerGroups.body }).toEqual({
        status: 200,
        body: {
          user_ti_events: [
            {
              ...eventBody(launch),
              user_ti_event_tickets: [
                {
                  ...ticketBody(general, 98),
                  user_ti_event_ticket_passes: [passBody(g1!, general, owner.id), passBody(g2!, general, owner.id, attendee.id)],
                },
                { ...ticketBody(vip, 99), user_ti_event_ticket_passes: [passBody(v1!, vip, owner.id)] },
              ],
            },
          ],
        },
      });
      expect((await s.api('/user/ti-event-tickets', { headers: member(attendee.token) })).body).toEqual({
        user_ti_events: [
          {
            ...eventBody(launch),
            user_ti_event_tickets: [
              { ...ticketBody(general, 98), user_ti_event_ticket_passes: [passBody(g2!, general, owner.id, attendee.id)] },
            ],
          },
          {
            ...eventBody(gala),
            user_ti_event_tickets: [{ ...ticketBody(dinner, 99), user_ti_event_ticket_passes: [passBody(d1!, dinner, attendee.id)] }],
          },
        ],
      });
    });

    it('answers `{items: []}` and `{}` for a member without passes, and 401 without a member', async () => {
      const tenant = await ticketing.tenant();
      const member = await kit.signedInMember(tenant);
      const headers = { resource: tenant.publicKey, token: member.token };
      expect((await s.api('/user/ti-events', { headers })).body).toEqual({ items: [] });
      const groups = await s.api('/user/ti-event-tickets', { headers });
      expect({ status: groups.status, body: groups.body }).toEqual({ status: 200, body: {} });
      for (const path of ['/user/ti-events', '/user/ti-event-tickets']) {
        const response = await s.api(path, { headers: { resource: tenant.publicKey } });
        expect({ status: response.status, body: response.body }).toEqual({ status: 401, body: errorBody('auth_failed') });
      }
    });

    it('shows nothing of another resource: passes of resource A are not a member’s in resource B', async () => {
      const a = await ticketing.tenant();
      const b = await ticketing.tenant();
      const member = await kit.signedInMember(a);
      const event = await ticketing.event(a, 'A only');
      const ticket = await ticketing.ticket(event.id, 'Seat');
      await ticketing.buy(a, ticket.id, member.id);
      // The same user joins B: their A passes do not follow them.
      const inB = await kit.signIn(b, member);
      expect((await s.api('/user/ti-events', { headers: { resource: b.publicKey, token: inB } })).body).toEqual({ items: [] });
      expect((await s.api('/user/ti-event-tickets', { headers: { resource: b.publicKey, token: inB } })).body).toEqual({});
      expect((await s.api('/ti-events', { headers: guest(b.publicKey) })).body).toEqual({ items: [] });
    });
  });

  describe('the operator path', () => {
    const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
    const cli = async (...args: string[]) =>
      JSON.parse(
        (
          await promisify(execFile)(process.execPath, ['tools/admin/dist/cli.js', ...args], {
            cwd: repoRoot,
            env: { ...process.env, ...s.stack.env, MASTHEAD_ENV: 'development' },
          })
        ).stdout,
      ) as Record<string, unknown>;

    it('creates and updates events and tickets with the admin CLI', async () => {
      const tenant = await ticketing.tenant();
      const event = await cli(
        'create-ti-event',
        '--resource-id',
        String(tenant.resourceId),
        '--title',
        'Book fair',
        '--photo',
        'https://img.example/a.jpg',
        '--photo',
        'https://img.example/b.jpg',
      );
      const eventId = String(event['id']);
      const createTicket = (title: string, quantity: number, price: number, ...flags: string[]) =>
        cli(
          'create-ti-ticket',
          '--ti-event-id',
          eventId,
          '--title',
          title,
          '--quantity',
          String(quantity),
          '--price',
          String(price),
          '--currency',
          'EUR',
          ...flags,
        );
      const ticket = await createTicket('Day pass', 30, 1200);
      await createTicket('Press', 5, 0, '--private');
      // Updated by title: the same ticket, a new quantity.
      expect((await createTicket('Day pass', 40, 1200))['id']).toBe(ticket['id']);

      expect((await s.api('/ti-events', { headers: guest(tenant.publicKey) })).body).toEqual({
        items: [
          {
            id: event['id'],
            title: 'Book fair',
            description: null,
            active: true,
            photo: ['https://img.example/a.jpg', 'https://img.example/b.jpg'],
            start_date: null,
            end_date: null,
          },
        ],
      });
      expect((await s.api(`/ti-event/${eventId}/tickets`, { headers: guest(tenant.publicKey) })).body).toEqual({
        items: [
          {
            id: ticket['id'],
            ti_event_id: event['id'],
            title: 'Day pass',
            description: null,
            quantity: 40,
            available: 40,
            price: 1200,
            currency: 'EUR',
          },
        ],
      });
      const refused = await cli(
        'create-ti-ticket',
        '--ti-event-id',
        eventId,
        '--title',
        'Bad',
        '--quantity',
        '1',
        '--price',
        '1',
        '--currency',
        'euro',
      ).catch((error: { code: number; stderr: string }) => error);
      expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('invalid_currency') });
    });

    it('loads the demo fixture with its ticketed event', async () => {
      await cli('load-fixture', 'fixtures/demo.json');
      const events = await s.api('/ti-events', { headers: guest('demo-resource') });
      expect(events.body).toEqual({
        items: [
          {
            id: expect.any(Number),
            title: "Demo Gazette readers' evening",
            description: 'An evening with the newsroom: talks, questions and drinks.',
            active: true,
            photo: ['https://images.example/demo-gazette-evening.jpg'],
            start_date: '2030-06-12T18:00:00.000Z',
            end_date: '2030-06-12T22:00:00.000Z',
          },
        ],
      });
      const id = (events.body['items'] as Array<{ id: number }>)[0]!.id;
      const tickets = await s.api(`/ti-event/${id}/tickets`, { headers: guest('demo-resource') });
      expect((tickets.body['items'] as Array<Record<string, unknown>>).map((ticket) => [ticket['title'], ticket['available']])).toEqual([
        ['General admission', 200],
        ['Front row', 20],
      ]);
    });
  });

  it('answers every operation of section F with 409 ti_events_not_available when ticketing is off', async () => {
    const tenant = await ticketing.tenant({});
    const off = await ticketing.tenant({ ti_events_system: false });
    const member = await kit.signedInMember(tenant);
    const operations: Array<[string, string, unknown?]> = [
      ['GET', '/ti-events'],
      ['GET', '/ti-event/1/tickets'],
      ['GET', '/user/ti-events'],
      ['GET', '/user/ti-event-tickets'],
      ['GET', '/user/ti-event/1/passes'],
      ['GET', '/user/ti-event/1/access'],
      ['GET', '/user/pass/1'],
      ['PUT', '/user/pass/1/assign', { assign_id: 1 }],
      ['GET', '/user/pass/1/unassign'],
      ['POST', '/user/pass/1/invite', { email: 'a@example.test' }],
      ['DELETE', '/user/pass/1/invite'],
      ['PUT', '/user/pass/1/extra', { extra: {} }],
      ['POST', '/ti-event/pass/invite-validation', { code: 'x' }],
      ['POST', '/ti-event/pass/invite-activation', { code: 'x' }],
      ['POST', '/ti-event/ticket/pass/authorization', { authorization_token: 'x' }],
    ];
    for (const [method, path, json] of operations) {
      const response = await s.api(path, { method, headers: { resource: tenant.publicKey, token: member.token }, json });
      expect({ path, status: response.status, body: response.body }).toEqual({
        path,
        status: 409,
        body: errorBody('ti_events_not_available'),
      });
    }
    expect((await s.api('/ti-events', { headers: guest(off.publicKey) })).status).toBe(409);
  });
});
