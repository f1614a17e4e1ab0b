import { defineError } from '@masthead/core/errors';

/** Checkout names a ticket that is not an active ticket of an active event of the resource. */
export const ticketNotFound = defineError({ status: 404, code: 'ti_event_ticket_not_found', description: 'Ticket not found' });
/** A reservation without its purchase key. */
export const invalidPurchaseKey = defineError({ status: 400, code: 'invalid_purchase_key', description: 'purchase_key is required' });
/** The purchase key names a reservation of another ticket, buyer, quantity or resource. */
export const reservationConflict = defineError({
  status: 409,
  code: 'ticket_reservation_conflict',
  description: 'The purchase key names another reservation',
});
/** A parallel call with the same purchase key is still claiming units: retry. */
export const reservationPending = defineError({
  status: 409,
  code: 'ticket_reservation_pending',
  description: 'The reservation is still being made; retry',
});
/** No reservation has the purchase key in the resource. */
export const reservationNotFound = defineError({ status: 404, code: 'ticket_reservation_not_found', description: 'Reservation not found' });
/** The reservation was released (payment failed, abandoned or expired): it cannot be confirmed. */
export const reservationReleased = defineError({
  status: 409,
  code: 'ticket_reservation_released',
  description: 'The reservation was released',
});
/** The reservation was confirmed into passes: it cannot be released. */
export const reservationConfirmed = defineError({
  status: 409,
  code: 'ticket_reservation_confirmed',
  description: 'The reservation was confirmed',
});
/** The purchase line was refunded or its dispute lost: its key issues no passes any more (docs/adr/0234). */
export const reservationRevoked = defineError({
  status: 409,
  code: 'ticket_reservation_revoked',
  description: 'The purchase was revoked',
});
