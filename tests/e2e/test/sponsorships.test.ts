import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Plan, Pricing } from '@masthead/proto/catalog';
import type { CreateSponsorshipRequest, Sponsorship } from '@masthead/proto/community/sponsorships';
import { createTenant, type Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { catalogKit, publicPricing, type Json } from './catalog-support.js';
import { anyIsoDate, anyRequestId, collectEvents, eventWhere, useStack } from './support.js';
import { ticketingKit } from './ti-events-support.js';

/**
 * Sponsorships (document 2 E, in spec and named: OPERATIONS.md 35-38, 126-132; docs/adr/0154-0156)
 * through the gateway, against community and catalog on FerretDB and NATS. Sponsorships are made
 * as billing makes them when a gift is bought: community's CreateSponsorship.
 */
describe('sponsorships', () => {
  const s = useStack();
  const kit = catalogKit(s);
  const community = ticketingKit(s).community;
  const errorBody = (code: string) => ({ error: code, error_description: expect.any(String), req_guid: anyRequestId });
  const fieldRefusal = (field: string) => ({
    status: 409,
    body: { error: true, error_fields: { [field]: expect.any(String) }, req_guid: anyRequestId },
  });
  const result = (response: { status: number; body: unknown }) => ({ status: response.status, body: response.body });

  /** A resource with a gift plan and Pricing, and a signed-in sponsor. */
  async function arrange(settings: Json = {}) {
    const tenant = await createTenant(s.stack, { settings });
    const plan = await kit.plan(tenant, 'gift', { title: 'Gift' });
    const pricing = await kit.pricing(plan.id, 'Gift year', { price: 5000, period: '1 year' });
    const sponsor = await kit.signedInMember(tenant);
    return { tenant, plan, pricing, sponsor, headers: { resource: tenant.publicKey, token: sponsor.token } };
  }
  type Arranged = Awaited<ReturnType<typeof arrange>>;

  /** A sponsorship as billing creates it after a purchase. */
  const gift = (a: Arranged, fields: Partial<CreateSponsorshipRequest> = {}): Promise<Sponsorship> =>
    community().sponsorships.createSponsorship({
      resourceId: a.tenant.resourceId,
      sponsorId: a.sponsor.id,
      pricingId: a.pricing.id,
      purchaseKey: `purchase-${randomUUID()}`,
      slots: 1,
      seatsPerSlot: 1,
      title: '',
      description: '',
      isPayingBySponsor: true,
      autorenew: true,
      ...fields,
    });

  const memberOf = async (tenant: Tenant) => {
    const member = await kit.signedInMember(tenant);
    return { ...member, headers: { resource: tenant.publicKey, token: member.token } };
  };
  const call = (headers: Record<string, string>, method: string, path: string, json?: unknown) => s.api(path, { method, headers, json });
  const activate = (headers: Record<string, string>, code: string) =>
    call(headers, 'PUT', '/recipient/sponsored-subscriptions/slots/activate', { activation_code: code });

  const slotBody = (sponsorship: Sponsorship, index: number, fields: Json = {}): Json => {
    const slot = sponsorship.slots[index]!;
    return {
      id: slot.id,
      sponsored_subscription_id: sponsorship.id,
      activation_code: slot.code,
      recipient_emails: [],
      seats: slot.seats,
      used_seats: 0,
      created_at: anyIsoDate,
      updated_at: anyIsoDate,
      ...fields,
    };
  };
  const parentBody = (a: Arranged, sponsorship: Sponsorship, fields: Json = {}): Json => ({
    id: sponsorship.id,
    sponsor_id: a.sponsor.id,
    subscription_id: a.pricing.id,
    title: 'Gift year',
    description: '',
    is_paying_by_sponsor: true,
    autorenew: true,
    is_allowed_next_subscription: false,
    created_at: anyIsoDate,
    updated_at: anyIsoDate,
    ...fields,
  });
  const membershipBody = (pricing: Pricing, plan: Plan, membershipId: number, autorenew: boolean): Json => ({
    ...publicPricing(pricing, plan),
    user_subscription_id: membershipId,
    subscription_end_date: anyIsoDate,
    autorenew,
    is_team_subscription: false,
  });

  describe('GET /sponsor/sponsored-subscriptions', () => {
    it('lists the sponsor’s sponsorships newest first with their slots; `[]` when none', async () => {
      const a = await arrange();
      expect(result(await call(a.headers, 'GET', '/sponsor/sponsored-subscriptions'))).toEqual({ status: 200, body: { items: [] } });
      const first = await gift(a, { title: 'For Ada', description: 'Happy birthday' });
      const second = await gift(a, { slots: 2, seatsPerSlot: 3, isPayingBySponsor: false, autorenew: false });
      // Another sponsor's and another resource's are not listed.
      const other = await memberOf(a.tenant);
      await gift({ ...a, sponsor: other });

      const list = await call(a.headers, 'GET', '/sponsor/sponsored-subscriptions');
      expect(result(list)).toEqual({
        status: 200,
        body: {
          items: [
            {
              ...parentBody(a, second, { is_paying_by_sponsor: false, autorenew: false }),
              slots: [slotBody(second, 1), slotBody(second, 0)].sort((x, y) => (y['id'] as number) - (x['id'] as number)),
            },
            { ...parentBody(a, first, { title: 'For Ada', description: 'Happy birthday' }), slots: [slotBody(first, 0)] },
          ],
        },
      });
      const elsewhere = await createTenant(s.stack);
      const inB = { resource: elsewhere.publicKey, token: await kit.signIn(elsewhere, a.sponsor) };
      expect((await call(inB, 'GET', '/sponsor/sponsored-subscriptions')).body).toEqual({ items: [] });
    });

    it('answers 409 sponsor_subscriptions_error when the list cannot be read, 401 without a member', async () => {
      const a = await arrange();
      const sponsorship = await gift(a);
      await s
        .db('community')
        .collection('sponsorships')
        .updateOne({ _id: sponsorship.id as never }, { $set: { created_at: 'not a date' } });
      expect(result(await call(a.headers, 'GET', '/sponsor/sponsored-subscriptions'))).toEqual({
        status: 409,
        body: errorBody('sponsor_subscriptions_error'),
      });
      expect(result(await call(a.headers, 'GET', `/sponsor/sponsored-subscriptions/${sponsorship.id}`))).toEqual({
        status: 409,
        body: errorBody('sponsor_subscription_error'),
      });
      expect(result(await s.api('/sponsor/sponsored-subscriptions', { headers: { resource: a.tenant.publicKey } }))).toEqual({
        status: 401,
        body: errorBody('auth_failed'),
      });
    });
  });

  describe('GET /sponsor/sponsored-subscriptions/{id} and /{id}/slots', () => {
    it('reads one with its first associated membership, and its slots newest first', async () => {
      const a = await arrange();
      const sponsorship = await gift(a, { slots: 2, seatsPerSlot: 2 });
      const one = await call(a.headers, 'GET', `/sponsor/sponsored-subscriptions/${sponsorship.id}`);
      const slots = [slotBody(sponsorship, 1), slotBody(sponsorship, 0)].sort((x, y) => (y['id'] as number) - (x['id'] as number));
      expect(result(one)).toEqual({ status: 200, body: { item: { ...parentBody(a, sponsorship), slots, user_subscription: null } } });
      const listed = await call(a.headers, 'GET', `/sponsor/sponsored-subscriptions/${sponsorship.id}/slots`);
      expect(result(listed)).toEqual({ status: 200, body: { items: slots } });

      const recipient = await memberOf(a.tenant);
      const activated = await activate(recipient.headers, sponsorship.slots[0]!.code);
      const membershipId = activated.body['user_subscription_id'] as number;
      const after = await call(a.headers, 'GET', `/sponsor/sponsored-subscriptions/${sponsorship.id}`);
      expect(after.body).toEqual({
        item: {
          ...parentBody(a, sponsorship),
          slots: expect.arrayContaining([slotBody(sponsorship, 0, { used_seats: 1 }), slotBody(sponsorship, 1)]),
          user_subscription: membershipBody(a.pricing, a.plan, membershipId, true),
        },
      });
    });

    it('answers 409 invalid_id for an empty or zero ID and 404 sponsor_subscription_error for anyone else’s', async () => {
      const a = await arrange();
      const sponsorship = await gift(a);
      const stranger = await memberOf(a.tenant);
      const elsewhere = await createTenant(s.stack);
      const inB = { resource: elsewhere.publicKey, token: await kit.signIn(elsewhere, a.sponsor) };
      for (const suffix of ['', '/slots']) {
        for (const id of ['abc', '0', '-0', '+']) {
          expect(result(await call(a.headers, 'GET', `/sponsor/sponsored-subscriptions/${id}${suffix}`))).toEqual({
            status: 409,
            body: errorBody('invalid_id'),
          });
        }
        for (const [headers, id] of [
          [stranger.headers, sponsorship.id],
          [inB, sponsorship.id],
          [a.headers, 999_999_999],
          [a.headers, -5],
        ] as const) {
          expect(result(await call(headers, 'GET', `/sponsor/sponsored-subscriptions/${id}${suffix}`))).toEqual({
            status: 404,
            body: errorBody('sponsor_subscription_error'),
          });
        }
      }
      // "Integer-sanitized": the digits of `1x2` name sponsorship 12.
      expect((await call(a.headers, 'GET', `/sponsor/sponsored-subscriptions/${String(sponsorship.id).split('').join('x')}`)).status).toBe(
        200,
      );
    });
  });

  describe('PUT /sponsor/sponsored-subscriptions/{id}', () => {
    const put = (a: Arranged, id: number | string, json: unknown) => call(a.headers, 'PUT', `/sponsor/sponsored-subscriptions/${id}`, json);

    it('runs the four steps in order with their events; unchanged flags skip their step; null or empty text does not erase', async () => {
      const a = await arrange();
      const sponsorship = await gift(a);
      const recipient = await memberOf(a.tenant);
      const membershipId = (await activate(recipient.headers, sponsorship.slots[0]!.code)).body['user_subscription_id'] as number;
      const names = [
        'sponsor_subscription_text_updated',
        'sponsor_subscription_payer_changed',
        'sponsor_subscription_autorenew_changed',
        'sponsor_subscription_next_subscription_changed',
      ];
      const seen = Object.fromEntries(names.map((name) => [name, collectEvents(s.nats, name)]));

      const updated = await put(a, sponsorship.id, {
        title: '  <b>For Ada</b> ',
        description: 'Happy birthday',
        is_paying_by_sponsor: false,
        autorenew: false,
        is_allowed_next_subscription: true,
      });
      expect(result(updated)).toEqual({
        status: 200,
        body: {
          item: {
            ...parentBody(a, sponsorship, {
              title: 'For Ada',
              description: 'Happy birthday',
              is_paying_by_sponsor: false,
              autorenew: false,
              is_allowed_next_subscription: true,
            }),
            slots: [slotBody(sponsorship, 0, { used_seats: 1 })],
            user_subscription: membershipBody(a.pricing, a.plan, membershipId, false),
          },
        },
      });
      const base = { sponsorship_id: sponsorship.id, sponsor_id: a.sponsor.id };
      expect((await eventWhere(seen[names[0]!]!, 'sponsorship_id', sponsorship.id))['payload']).toEqual({
        ...base,
        title: 'For Ada',
        description: 'Happy birthday',
      });
      expect((await eventWhere(seen[names[1]!]!, 'sponsorship_id', sponsorship.id))['payload']).toEqual({
        ...base,
        is_paying_by_sponsor: false,
      });
      expect((await eventWhere(seen[names[2]!]!, 'sponsorship_id', sponsorship.id))['payload']).toEqual({
        ...base,
        membership_id: membershipId,
        autorenew: false,
      });
      expect((await eventWhere(seen[names[3]!]!, 'sponsorship_id', sponsorship.id))['payload']).toEqual({
        ...base,
        membership_id: membershipId,
        is_allowed_next_subscription: true,
      });
      // The recipient's membership itself no longer renews (catalog holds it).
      const membership = await s
        .db('catalog')
        .collection('memberships')
        .findOne({ _id: membershipId as never });
      expect(membership).toMatchObject({ autorenew: false, user_id: recipient.id });

      // Null and empty text erase nothing; the same flags again skip their steps (no events).
      const counts = () =>
        names.map((name) => seen[name]!.filter((event) => (event['payload'] as Json)['sponsorship_id'] === sponsorship.id).length);
      const before = counts();
      const again = await put(a, sponsorship.id, {
        title: null,
        description: '',
        is_paying_by_sponsor: false,
        autorenew: false,
        is_allowed_next_subscription: true,
      });
      expect(again.body).toEqual(updated.body);
      await put(a, sponsorship.id, { title: 'Changed' });
      await eventWhere(seen[names[0]!]!, 'title', 'Changed');
      expect(counts()).toEqual([before[0]! + 1, ...before.slice(1)]);
      // Flags that are not JSON booleans are not sent.
      expect((await put(a, sponsorship.id, { is_paying_by_sponsor: 'true', autorenew: 1 })).body).toEqual({
        item: expect.objectContaining({ is_paying_by_sponsor: false, autorenew: false }),
      });
    });

    it('keeps the earlier steps when a membership flag changes before any membership is associated (409)', async () => {
      const a = await arrange();
      const sponsorship = await gift(a);
      const refused = await put(a, sponsorship.id, { title: 'Saved first', is_paying_by_sponsor: false, autorenew: false });
      expect(result(refused)).toEqual({ status: 409, body: errorBody('sponsor_subscription_update_error') });
      expect((await call(a.headers, 'GET', `/sponsor/sponsored-subscriptions/${sponsorship.id}`)).body).toEqual({
        item: expect.objectContaining({ title: 'Saved first', is_paying_by_sponsor: false, autorenew: true, user_subscription: null }),
      });
      expect(result(await put(a, sponsorship.id, { is_allowed_next_subscription: true }))).toEqual({
        status: 409,
        body: errorBody('sponsor_subscription_update_error'),
      });
      // Unchanged flags need no membership.
      expect((await put(a, sponsorship.id, { autorenew: true, is_allowed_next_subscription: false })).status).toBe(200);
    });

    it('answers every listed error', async () => {
      const a = await arrange();
      const sponsorship = await gift(a);
      const stranger = await memberOf(a.tenant);
      for (const raw of ['{}', '[]', 'null', '0', 'not json']) {
        const response = await s.api(`/sponsor/sponsored-subscriptions/${sponsorship.id}`, {
          method: 'PUT',
          headers: { ...a.headers, 'content-type': 'application/json' },
          raw,
        });
        expect({ raw, ...result(response) }).toEqual({ raw, status: 400, body: errorBody('incorrect_data') });
      }
      expect(result(await s.api(`/sponsor/sponsored-subscriptions/${sponsorship.id}`, { method: 'PUT', headers: a.headers }))).toEqual({
        status: 400,
        body: errorBody('incorrect_data'),
      });
      expect(result(await put(a, 'abc', { title: 'x' }))).toEqual({ status: 409, body: errorBody('invalid_id') });
      expect(result(await put(a, sponsorship.id, { title: 'x'.repeat(129) }))).toEqual(fieldRefusal('title'));
      expect(result(await put(a, sponsorship.id, { title: 42 }))).toEqual(fieldRefusal('title'));
      expect(result(await put(a, sponsorship.id, { description: 'x'.repeat(513) }))).toEqual(fieldRefusal('description'));
      expect(result(await put(a, sponsorship.id, { description: ['x'] }))).toEqual(fieldRefusal('description'));
      expect(result(await call(stranger.headers, 'PUT', `/sponsor/sponsored-subscriptions/${sponsorship.id}`, { title: 'Mine' }))).toEqual({
        status: 404,
        body: errorBody('sponsor_subscription_update_error'),
      });
      expect((await call(a.headers, 'GET', `/sponsor/sponsored-subscriptions/${sponsorship.id}`)).body).toEqual({
        item: expect.objectContaining({ title: 'Gift year' }),
      });
    });
  });

  describe('the sponsor’s slot operations', () => {
    it('reads an owned slot with its recipients; anyone else’s is 404 sponsor_slot_not_found', async () => {
      const a = await arrange();
      const sponsorship = await gift(a, { seatsPerSlot: 3 });
      const slot = sponsorship.slots[0]!;
      const recipient = await memberOf(a.tenant);
      const membershipId = (await activate(recipient.headers, slot.code)).body['user_subscription_id'] as number;
      const read = await call(a.headers, 'GET', `/sponsor/sponsored-subscriptions/slots/${slot.id}`);
      expect(result(read)).toEqual({
        status: 200,
        body: {
          item: {
            ...slotBody(sponsorship, 0, { used_seats: 1 }),
            recipients: [
              { user_id: recipient.id, user_subscription_id: membershipId, is_paying_by_sponsor: true, activated_at: anyIsoDate },
            ],
          },
        },
      });
      expect(result(await call(recipient.headers, 'GET', `/sponsor/sponsored-subscriptions/slots/${slot.id}`))).toEqual({
        status: 404,
        body: errorBody('sponsor_slot_not_found'),
      });
      expect(result(await call(a.headers, 'GET', '/sponsor/sponsored-subscriptions/slots/abc'))).toEqual({
        status: 409,
        body: errorBody('invalid_id'),
      });
    });

    it('invites or notifies a recipient: a single-seat slot is bound to the last one, a full slot refuses', async () => {
      const a = await arrange();
      const sponsorship = await gift(a);
      const slot = sponsorship.slots[0]!;
      const ada = await memberOf(a.tenant);
      const bob = await memberOf(a.tenant);
      const invitations = collectEvents(s.nats, 'sponsor_slot_invitation');
      const invite = (email: unknown) =>
        call(a.headers, 'PUT', `/sponsor/sponsored-subscriptions/slots/${slot.id}/invitation`, { recipient_email: email });

      expect(result(await invite(bob.email))).toEqual({
        status: 200,
        body: { item: { ...slotBody(sponsorship, 0, { recipient_emails: [bob.email] }), recipients: [] } },
      });
      const changed = await invite(` ${ada.email.toUpperCase()} `);
      expect(changed.body).toEqual({ item: { ...slotBody(sponsorship, 0, { recipient_emails: [ada.email] }), recipients: [] } });
      expect((await eventWhere(invitations, 'recipient_email', ada.email))['payload']).toEqual({
        slot_id: slot.id,
        sponsorship_id: sponsorship.id,
        sponsor_id: a.sponsor.id,
        recipient_email: ada.email,
        code: slot.code,
      });
      for (const email of ['', 'nope', 7]) expect(result(await invite(email))).toEqual(fieldRefusal('recipient_email'));

      // Bound to Ada: Bob cannot take the gift.
      expect(result(await activate(bob.headers, slot.code))).toEqual({ status: 409, body: errorBody('sponsor_slot_activation_error') });
      expect((await activate(ada.headers, slot.code)).status).toBe(200);
      expect(result(await invite(bob.email))).toEqual({ status: 409, body: errorBody('sponsor_slot_full') });
      const stranger = await memberOf(a.tenant);
      expect(
        result(
          await call(stranger.headers, 'PUT', `/sponsor/sponsored-subscriptions/slots/${slot.id}/invitation`, {
            recipient_email: stranger.email,
          }),
        ),
      ).toEqual({
        status: 404,
        body: errorBody('sponsor_slot_not_found'),
      });
    });

    it('clears a multi-seat slot: recipients lose their memberships, seats and code are renewed; a single-seat slot refuses', async () => {
      const a = await arrange();
      const group = await gift(a, { seatsPerSlot: 2 });
      const slot = group.slots[0]!;
      const [ada, bob] = await Promise.all([memberOf(a.tenant), memberOf(a.tenant)]);
      await call(a.headers, 'PUT', `/sponsor/sponsored-subscriptions/slots/${slot.id}/invitation`, { recipient_email: ada.email });
      const adaMembership = (await activate(ada.headers, slot.code)).body['user_subscription_id'] as number;
      const bobMembership = (await activate(bob.headers, slot.code.toUpperCase())).body['user_subscription_id'] as number;
      const cleared = collectEvents(s.nats, 'sponsor_slot_cleared');

      const response = await call(a.headers, 'PUT', `/sponsor/sponsored-subscriptions/slots/${slot.id}/clear`);
      const newCode = (response.body['item'] as Json)['activation_code'] as string;
      expect(result(response)).toEqual({
        status: 200,
        body: { item: { ...slotBody(group, 0, { activation_code: expect.stringMatching(/^[0-9a-f]{40}$/) }), recipients: [] } },
      });
      expect(newCode).not.toBe(slot.code);
      expect((await eventWhere(cleared, 'slot_id', slot.id))['payload']).toEqual({
        slot_id: slot.id,
        sponsorship_id: group.id,
        sponsor_id: a.sponsor.id,
        user_ids: expect.arrayContaining([ada.id, bob.id]),
        membership_ids: expect.arrayContaining([adaMembership, bobMembership]),
      });
      const memberships = await s
        .db('catalog')
        .collection('memberships')
        .find({ _id: { $in: [adaMembership, bobMembership] as never[] } })
        .toArray();
      expect(memberships.map((membership) => membership['active'])).toEqual([false, false]);
      expect(result(await call(ada.headers, 'GET', `/recipient/sponsored-subscriptions/slots/${slot.code}`))).toEqual({
        status: 404,
        body: errorBody('sponsor_slot_not_found'),
      });
      expect((await activate(bob.headers, newCode)).status).toBe(200);

      const single = await gift(a);
      expect(result(await call(a.headers, 'PUT', `/sponsor/sponsored-subscriptions/slots/${single.slots[0]!.id}/clear`))).toEqual({
        status: 409,
        body: errorBody('sponsor_slot_not_multi_seat'),
      });
      expect(result(await call(bob.headers, 'PUT', `/sponsor/sponsored-subscriptions/slots/${slot.id}/clear`))).toEqual({
        status: 404,
        body: errorBody('sponsor_slot_not_found'),
      });
    });
  });

  describe('the recipient’s tasks', () => {
    it('lists email-matched slots, previews and activates a code, and gets the membership through catalog', async () => {
      const a = await arrange();
      const sponsorship = await gift(a, { title: 'For Ada', description: 'Enjoy' });
      const slot = sponsorship.slots[0]!;
      const ada = await memberOf(a.tenant);
      expect(result(await call(ada.headers, 'GET', '/recipient/sponsored-subscriptions/slots'))).toEqual({
        status: 200,
        body: { items: [] },
      });
      await call(a.headers, 'PUT', `/sponsor/sponsored-subscriptions/slots/${slot.id}/invitation`, { recipient_email: ada.email });
      const activations = collectEvents(s.nats, 'sponsor_slot_activated');

      const recipientSlot = {
        ...slotBody(sponsorship, 0, { recipient_emails: [ada.email] }),
        sponsored_subscription: parentBody(a, sponsorship, { title: 'For Ada', description: 'Enjoy' }),
      };
      expect(result(await call(ada.headers, 'GET', '/recipient/sponsored-subscriptions/slots'))).toEqual({
        status: 200,
        body: { items: [recipientSlot] },
      });
      expect(result(await call(ada.headers, 'GET', `/recipient/sponsored-subscriptions/slots/${slot.code.toUpperCase()}`))).toEqual({
        status: 200,
        body: { item: recipientSlot },
      });

      const activated = await activate(ada.headers, slot.code);
      const membershipId = activated.body['user_subscription_id'] as number;
      const activation = {
        result: true,
        slot_id: slot.id,
        sponsored_subscription_id: sponsorship.id,
        subscription_id: a.pricing.id,
        user_subscription_id: expect.any(Number),
        is_paying_by_sponsor: true,
      };
      expect(result(activated)).toEqual({ status: 200, body: activation });
      expect((await eventWhere(activations, 'slot_id', slot.id))['payload']).toEqual({
        slot_id: slot.id,
        sponsorship_id: sponsorship.id,
        user_id: ada.id,
        membership_id: membershipId,
        pricing_id: a.pricing.id,
      });
      // The recipient holds the gift's membership, renewing as the purchase asked.
      const profile = await call(ada.headers, 'GET', '/user');
      expect(profile.body['subscriptions']).toEqual([membershipBody(a.pricing, a.plan, membershipId, true)]);
      // A repeat answers the same; the slot leaves the recipient's list; the slot is full for others.
      expect((await activate(ada.headers, slot.code)).body).toEqual({ ...activation, user_subscription_id: membershipId });
      expect((await call(ada.headers, 'GET', '/recipient/sponsored-subscriptions/slots')).body).toEqual({ items: [] });
    });

    it('fills a multi-seat slot up to its seats and refuses codes that are missing, unknown or of another resource', async () => {
      const a = await arrange();
      const group = await gift(a, { seatsPerSlot: 2 });
      const code = group.slots[0]!.code;
      const members = await Promise.all([memberOf(a.tenant), memberOf(a.tenant), memberOf(a.tenant)]);
      const statuses = await Promise.all(members.map((member) => activate(member.headers, code).then((response) => response.status)));
      expect(statuses.sort()).toEqual([200, 200, 409]);

      expect(result(await call(members[0]!.headers, 'PUT', '/recipient/sponsored-subscriptions/slots/activate', {}))).toEqual({
        status: 409,
        body: errorBody('invalid_activation_code'),
      });
      expect(result(await activate(members[0]!.headers, 'no-such-code'))).toEqual({
        status: 404,
        body: errorBody('sponsor_slot_not_found'),
      });
      expect(result(await call(members[0]!.headers, 'GET', '/recipient/sponsored-subscriptions/slots/no-such-code'))).toEqual({
        status: 404,
        body: errorBody('sponsor_slot_not_found'),
      });
      // A member of another resource cannot use or see A's code.
      const b = await createTenant(s.stack);
      const inB = await memberOf(b);
      const fresh = (await gift(a)).slots[0]!.code;
      expect(result(await activate(inB.headers, fresh))).toEqual({ status: 404, body: errorBody('sponsor_slot_not_found') });
      expect(result(await call(inB.headers, 'GET', `/recipient/sponsored-subscriptions/slots/${fresh}`))).toEqual({
        status: 404,
        body: errorBody('sponsor_slot_not_found'),
      });
      expect(result(await call(inB.headers, 'GET', `/sponsor/sponsored-subscriptions/slots/${group.slots[0]!.id}`))).toEqual({
        status: 404,
        body: errorBody('sponsor_slot_not_found'),
      });
    });

    it('turns off the sponsor’s payment for the recipient’s gift, which decides who renews it', async () => {
      const a = await arrange();
      const sponsorship = await gift(a);
      const slot = sponsorship.slots[0]!;
      const ada = await memberOf(a.tenant);
      const membershipId = (await activate(ada.headers, slot.code)).body['user_subscription_id'] as number;
      const renewal = () => community().sponsorships.getMembershipSponsorship({ resourceId: a.tenant.resourceId, membershipId });
      expect(await renewal()).toEqual({
        sponsored: true,
        sponsorshipId: sponsorship.id,
        sponsorId: a.sponsor.id,
        recipientId: ada.id,
        isPayingBySponsor: true,
        autorenew: true,
        isAllowedNextSubscription: false,
      });
      const turnedOff = collectEvents(s.nats, 'sponsor_payment_turned_off');
      const path = `/recipient/sponsored-subscriptions/slots/${slot.id}/sponsor/turn-off`;
      const off = await call(ada.headers, 'PUT', path);
      const answer = {
        result: true,
        slot_id: slot.id,
        sponsored_subscription_id: sponsorship.id,
        subscription_id: a.pricing.id,
        user_subscription_id: membershipId,
        is_paying_by_sponsor: false,
      };
      expect(result(off)).toEqual({ status: 200, body: answer });
      expect((await eventWhere(turnedOff, 'slot_id', slot.id))['payload']).toEqual({
        slot_id: slot.id,
        sponsorship_id: sponsorship.id,
        user_id: ada.id,
        membership_id: membershipId,
      });
      expect((await call(ada.headers, 'PUT', path)).body).toEqual(answer);
      expect(await renewal()).toEqual(expect.objectContaining({ sponsored: true, isPayingBySponsor: false }));
      expect(
        ((await call(a.headers, 'GET', `/sponsor/sponsored-subscriptions/slots/${slot.id}`)).body['item'] as Json)['recipients'],
      ).toEqual([{ user_id: ada.id, user_subscription_id: membershipId, is_paying_by_sponsor: false, activated_at: anyIsoDate }]);
      // Only the recipient holding the seat can: the sponsor, a stranger and another resource get 404.
      const b = await createTenant(s.stack);
      for (const headers of [a.headers, (await memberOf(a.tenant)).headers, { resource: b.publicKey, token: await kit.signIn(b, ada) }]) {
        expect(result(await call(headers, 'PUT', path))).toEqual({ status: 404, body: errorBody('sponsor_slot_not_found') });
      }
      expect(result(await call(ada.headers, 'PUT', '/recipient/sponsored-subscriptions/slots/x/sponsor/turn-off'))).toEqual({
        status: 409,
        body: errorBody('invalid_id'),
      });
      // A membership bought or granted otherwise is not sponsored.
      const own = await kit.grant(a.tenant, ada.id, (await kit.pricing(a.plan.id, 'Own', { price: 100 })).id);
      expect(
        (await community().sponsorships.getMembershipSponsorship({ resourceId: a.tenant.resourceId, membershipId: own })).sponsored,
      ).toBe(false);
    });

    it('with single_subscription, an invite activation clears the member’s shared seats and stops their gifts', async () => {
      const a = await arrange({ single_subscription: true });
      const gifted = await gift(a);
      const shared = await gift(a, { seatsPerSlot: 3 });
      const ada = await memberOf(a.tenant);
      const held: number[] = [];
      for (const sponsorship of [gifted, shared]) {
        const activated = await activate(ada.headers, sponsorship.slots[0]!.code);
        expect(activated.status).toBe(200);
        held.push(activated.body['user_subscription_id'] as number);
      }
      const news = await kit.plan(a.tenant, 'news', { title: 'News' });
      const free = await kit.pricing(news.id, 'News free', { price: 0 });
      await community().invitations.createInvitationCode({
        resourceId: a.tenant.resourceId,
        pricingId: free.id,
        code: 'single-switch-01',
        activationsLimit: 0,
        email: '',
        title: '',
        description: '',
      });
      const turnedOff = collectEvents(s.nats, 'sponsor_payment_turned_off');
      const switched = await s.api('/invite-activation', { method: 'POST', headers: ada.headers, json: { invite: 'single-switch-01' } });
      expect(result(switched)).toEqual({ status: 200, body: { result: true, subscription_id: free.id } });

      const seats = s.db('community').collection('sponsorship_slot_activations');
      // The gift stays bound to Ada, its sponsor no longer paying; the shared seat is free again.
      expect(await seats.find({ sponsorship_id: gifted.id }).toArray()).toEqual([
        expect.objectContaining({ user_id: ada.id, membership_id: held[0], is_paying_by_sponsor: false }),
      ]);
      expect(await seats.countDocuments({ sponsorship_id: shared.id })).toBe(0);
      for (const [index, sponsorship] of [gifted, shared].entries()) {
        expect((await eventWhere(turnedOff, 'sponsorship_id', sponsorship.id))['payload']).toEqual({
          slot_id: sponsorship.slots[0]!.id,
          sponsorship_id: sponsorship.id,
          user_id: ada.id,
          membership_id: held[index],
        });
      }
      const renewal = await community().sponsorships.getMembershipSponsorship({ resourceId: a.tenant.resourceId, membershipId: held[0]! });
      expect(renewal).toEqual(expect.objectContaining({ sponsored: true, isPayingBySponsor: false }));
      // Someone else can take the freed seat.
      const bea = await memberOf(a.tenant);
      expect((await activate(bea.headers, shared.slots[0]!.code)).status).toBe(200);
    });
  });

  it('lets an operator create a sponsorship with the admin CLI', async () => {
    const a = await arrange();
    const run = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['tools/admin/dist/cli.js', ...args], {
        cwd: fileURLToPath(new URL('../../../', import.meta.url)),
        env: { ...process.env, ...s.stack.env, MASTHEAD_ENV: 'development' },
      });
    const args = ['--resource-id', String(a.tenant.resourceId), '--sponsor-id', String(a.sponsor.id), '--pricing-id', String(a.pricing.id)];
    const printed = JSON.parse(
      (await run('create-sponsorship', ...args, '--slots', '2', '--title', 'Staff gifts', '--no-autorenew')).stdout,
    ) as Json;
    expect(printed).toMatchObject({ id: expect.any(Number), title: 'Staff gifts', autorenew: false, isPayingBySponsor: true });
    const list = await call(a.headers, 'GET', '/sponsor/sponsored-subscriptions');
    expect(list.body).toEqual({
      items: [
        expect.objectContaining({
          id: printed['id'],
          title: 'Staff gifts',
          autorenew: false,
          slots: [expect.any(Object), expect.any(Object)],
        }),
      ],
    });
  });

  it('creates one sponsorship per purchase key, also when billing retries', async () => {
    const a = await arrange();
    const purchaseKey = `purchase-${randomUUID()}`;
    const created = await Promise.all([1, 2, 3].map(() => gift(a, { purchaseKey, slots: 3, seatsPerSlot: 1 })));
    expect(new Set(created.map((sponsorship) => sponsorship.id)).size).toBe(1);
    const again = await gift(a, { purchaseKey, slots: 3 });
    expect(again.slots.map((slot) => slot.id).sort()).toEqual(created[0]!.slots.map((slot) => slot.id).sort());
    expect(again.slots).toHaveLength(3);
    expect(await s.db('community').collection('sponsorship_slots').countDocuments({ sponsorship_id: again.id })).toBe(3);
    await expect(gift(a, { pricingId: 999_999 })).rejects.toMatchObject({ code: 'subscription_not_found' });
    await expect(gift(a, { slots: 0 })).rejects.toMatchObject({ code: 'invalid_slots' });
  });
});
