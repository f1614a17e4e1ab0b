import { randomUUID } from 'node:crypto';
import { isServiceError } from '@masthead/core/errors';
import { processClient, type ProcessClient } from '@masthead/service-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommunityHarness, type CommunityHarness } from './support/harness.js';

/**
 * The ticket inventory behind checkout (docs/adr/0151), at the RPC level on FerretDB: units are
 * unique claims, so parallel purchases never take more than a ticket's quantity.
 */
let harness: CommunityHarness;
let sales: ProcessClient<'tiEvents' | 'ticketSales'>;
beforeAll(async () => {
  harness = await startCommunityHarness();
  sales = processClient(['tiEvents', 'ticketSales'], harness.address, 30_000);
}, 90_000);
afterAll(async () => {
  sales?.close();
  await harness?.stop();
}, 30_000);

let lastId = 7000;
const newId = () => ++lastId;
const key = () => `purchase-${randomUUID()}`;

/** A resource with an active event and a ticket of `quantity`. */
async function ticketOf(quantity: number, overrides: { active?: boolean; eventActive?: boolean } = {}) {
  const resourceId = newId();
  const event = await sales.upsertEvent({ resourceId, title: 'Launch night', active: overrides.eventActive ?? true, photo: [] });
  const ticket = await sales.upsertTicket({
    tiEventId: event.id,
    title: 'General admission',
    quantity,
    price: 2500,
    currency: 'USD',
    active: overrides.active ?? true,
    private: false,
    unassignLimit: 1,
  });
  return { resourceId, event, ticket };
}

const codeOf = async (call: Promise<unknown>): Promise<string> => {
  try {
    await call;
    return 'ok';
  } catch (error) {
    if (isServiceError(error)) return error.code;
    throw error;
  }
};

const available = async (resourceId: number, ticketId: number) => (await sales.getTicketOffer({ resourceId, ticketId })).ticket?.available;

/** One checkout purchase: reserve, then confirm as after a successful payment. */
async function buy(resourceId: number, ticketId: number, userId: number, quantity = 1) {
  const purchaseKey = key();
  await sales.reserveTickets({ resourceId, ticketId, userId, quantity, purchaseKey, holdSeconds: 0 });
  return sales.confirmTickets({ resourceId, purchaseKey });
}

describe('ticket sales', () => {
  it.each([1, 2, 3])(
    'gives exactly 10 passes to 50 parallel purchases of the last 10 tickets (run %i)',
    async () => {
      const { resourceId, ticket } = await ticketOf(60);
      const early = await buy(resourceId, ticket.id, newId(), 50);
      expect(early.passes).toHaveLength(50);
      expect(await available(resourceId, ticket.id)).toBe(10);

      const buyers = Array.from({ length: 50 }, () => newId());
      const outcomes = await Promise.all(buyers.map((buyer) => codeOf(buy(resourceId, ticket.id, buyer))));

      expect(outcomes.filter((outcome) => outcome === 'ok')).toHaveLength(10);
      expect(outcomes.filter((outcome) => outcome === 'ti_event_tickets_sold_out')).toHaveLength(40);
      const passes = harness.db.collection('ti_event_ticket_passes');
      expect(await passes.countDocuments({ ticket_id: ticket.id })).toBe(60);
      expect(await harness.db.collection('ticket_units').countDocuments({ ticket_id: ticket.id })).toBe(60);
      expect(await available(resourceId, ticket.id)).toBe(0);
      // Every winner owns exactly one pass.
      const owners = (await passes.find({ ticket_id: ticket.id, owner_id: { $in: buyers } }).toArray()).map((pass) => pass['owner_id']);
      expect(new Set(owners).size).toBe(10);
    },
    120_000,
  );

  it('answers a repeated reservation and confirmation with the first, and issues no second pass', async () => {
    const { resourceId, event, ticket } = await ticketOf(5);
    const userId = newId();
    const purchaseKey = key();
    const request = { resourceId, ticketId: ticket.id, userId, quantity: 2, purchaseKey, holdSeconds: 0 };

    const reserved = await sales.reserveTickets(request);
    expect(reserved).toEqual({
      purchaseKey,
      resourceId,
      ticketId: ticket.id,
      tiEventId: event.id,
      userId,
      quantity: 2,
      unitPrice: 2500,
      currency: 'USD',
      status: 'reserved',
      expiresAt: expect.any(String),
    });
    expect(await sales.reserveTickets(request)).toEqual(reserved);
    expect(await available(resourceId, ticket.id)).toBe(3);

    const confirmed = await sales.confirmTickets({ resourceId, purchaseKey });
    const again = await sales.confirmTickets({ resourceId, purchaseKey });
    expect(confirmed.reservation).toEqual({ ...reserved, status: 'confirmed', expiresAt: undefined });
    expect(confirmed.passes.map((pass) => [pass.ownerId, pass.ticketId, pass.tiEventId, pass.assignId])).toEqual([
      [userId, ticket.id, event.id, undefined],
      [userId, ticket.id, event.id, undefined],
    ]);
    expect(again.passes).toEqual(confirmed.passes);
    expect((await sales.reserveTickets(request)).status).toBe('confirmed');
    expect(await codeOf(sales.releaseTickets({ resourceId, purchaseKey }))).toBe('ticket_reservation_confirmed');
    expect(await available(resourceId, ticket.id)).toBe(3);
  });

  it('releases a failed purchase: its units come back and it cannot be confirmed or reserved again', async () => {
    const { resourceId, ticket } = await ticketOf(2);
    const purchaseKey = key();
    const request = { resourceId, ticketId: ticket.id, userId: newId(), quantity: 2, purchaseKey, holdSeconds: 0 };
    await sales.reserveTickets(request);
    expect(await available(resourceId, ticket.id)).toBe(0);

    expect((await sales.releaseTickets({ resourceId, purchaseKey })).status).toBe('released');
    expect((await sales.releaseTickets({ resourceId, purchaseKey })).status).toBe('released');
    expect(await available(resourceId, ticket.id)).toBe(2);
    expect(await codeOf(sales.confirmTickets({ resourceId, purchaseKey }))).toBe('ticket_reservation_released');
    expect((await sales.reserveTickets(request)).status).toBe('released');
    expect(await available(resourceId, ticket.id)).toBe(2);
    // A key never reserved is recorded as released, so a late reservation under it is not held.
    const unknown = key();
    expect((await sales.releaseTickets({ resourceId, purchaseKey: unknown })).status).toBe('released');
    expect((await sales.reserveTickets({ ...request, purchaseKey: unknown })).status).toBe('released');
    expect(await available(resourceId, ticket.id)).toBe(2);
  });

  it('reserves all of a purchase or nothing', async () => {
    const { resourceId, ticket } = await ticketOf(3);
    await buy(resourceId, ticket.id, newId(), 1);
    expect(await codeOf(buy(resourceId, ticket.id, newId(), 3))).toBe('ti_event_tickets_sold_out');
    expect(await available(resourceId, ticket.id)).toBe(2);
    expect((await buy(resourceId, ticket.id, newId(), 2)).passes).toHaveLength(2);
  });

  it('gives lapsed holds back to the next purchase, and a lapsed hold confirmed in time stays sold', async () => {
    const { resourceId, ticket } = await ticketOf(2);
    const lapsing = key();
    const kept = key();
    await sales.reserveTickets({ resourceId, ticketId: ticket.id, userId: newId(), quantity: 1, purchaseKey: lapsing, holdSeconds: 1 });
    await sales.reserveTickets({ resourceId, ticketId: ticket.id, userId: newId(), quantity: 1, purchaseKey: kept, holdSeconds: 1 });
    await sales.confirmTickets({ resourceId, purchaseKey: kept });

    // Polled, not slept: the next purchase succeeds once the unconfirmed hold has lapsed.
    const late = newId();
    await expect.poll(() => codeOf(buy(resourceId, ticket.id, late)), { timeout: 10_000, interval: 250 }).toBe('ok');
    expect(await codeOf(sales.confirmTickets({ resourceId, purchaseKey: lapsing }))).toBe('ticket_reservation_released');
    expect(await harness.db.collection('ti_event_ticket_passes').countDocuments({ ticket_id: ticket.id })).toBe(2);
    expect(await available(resourceId, ticket.id)).toBe(0);
  });

  it('refuses what cannot be sold, and keys that name another purchase', async () => {
    const { resourceId, ticket } = await ticketOf(5);
    const inactive = await ticketOf(5, { active: false });
    const closed = await ticketOf(5, { eventActive: false });
    const reserve = (fields: Partial<Parameters<typeof sales.reserveTickets>[0]>) =>
      codeOf(
        sales.reserveTickets({ resourceId, ticketId: ticket.id, userId: 1, quantity: 1, purchaseKey: key(), holdSeconds: 0, ...fields }),
      );

    expect(await reserve({ quantity: 0 })).toBe('invalid_quantity');
    expect(await reserve({ quantity: 101 })).toBe('invalid_quantity');
    expect(await reserve({ purchaseKey: ' ' })).toBe('invalid_purchase_key');
    expect(await reserve({ resourceId: resourceId + 1 })).toBe('ti_event_ticket_not_found');
    expect(await reserve({ resourceId: inactive.resourceId, ticketId: inactive.ticket.id })).toBe('ti_event_ticket_not_found');
    expect(await reserve({ resourceId: closed.resourceId, ticketId: closed.ticket.id })).toBe('ti_event_ticket_not_found');

    const purchaseKey = key();
    expect(await reserve({ purchaseKey, userId: 2 })).toBe('ok');
    expect(await reserve({ purchaseKey, userId: 3 })).toBe('ticket_reservation_conflict');
    expect(await codeOf(sales.confirmTickets({ resourceId: resourceId + 1, purchaseKey }))).toBe('ticket_reservation_not_found');
    expect(await codeOf(sales.confirmTickets({ resourceId, purchaseKey: key() }))).toBe('ticket_reservation_not_found');
    expect(await codeOf(sales.releaseTickets({ resourceId: resourceId + 1, purchaseKey }))).toBe('ticket_reservation_not_found');
  });
});
