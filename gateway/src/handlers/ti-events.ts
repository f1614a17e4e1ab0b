import { z } from 'zod';
import type { ResourceContext } from '../auth/context.js';
import { tiEventsNotAvailable } from '../errors/community.js';
import { fromFields, idOrZero, text } from '../http/request.js';
import type { Handler } from '../routes/define.js';
import { serializeTicket, serializeTicketGroups, serializeTiEvent } from '../serializers/ti-events.js';
import { resourceFlag } from './invitations.js';
import { clientOf } from './recovery.js';
import { serializeSessionResult } from './identity.js';

/**
 * Events, tickets and the pass-token sign-in (document 2 F; docs/adr/0150, 0153). Every action
 * needs the resource setting `ti_events_system` (409 ti_events_not_available).
 */

const READ = { idempotent: true };

type TicketingClass = 'guestWithResource' | 'member';

/** Wraps an action of section F with its resource-setting check. */
export const ticketing =
  <A extends TicketingClass, I>(action: Handler<A, I>): Handler<A, I> =>
  (context, input, clients, req) => {
    if (!resourceFlag(context as ResourceContext, 'ti_events_system')) throw tiEventsNotAvailable();
    return action(context, input, clients, req);
  };

/** `{id}` of an event: malformed is 0, which community answers 404 ti_events_not_found. */
export const eventRequest = z.object({ params: z.object({ id: idOrZero }) }).transform(({ params }) => ({ eventId: params.id }));

/** GET /ti-events: the resource's active events, unpaginated. */
export const listEvents = ticketing<'guestWithResource', undefined>(async (context, _input, { tiEvents }) => ({
  body: { items: (await tiEvents.listEvents({ resourceId: context.resource.id }, READ)).items.map(serializeTiEvent) },
}));

/** GET /ti-event/{id}/tickets: tickets of an active event, with `available` (no reservation). */
export const listEventTickets = ticketing<'guestWithResource', z.output<typeof eventRequest>>(
  async (context, { eventId }, { tiEvents }) => ({
    body: {
      items: (await tiEvents.listEventTickets({ resourceId: context.resource.id, tiEventId: eventId }, READ)).items.map(serializeTicket),
    },
  }),
);

/** GET /user/ti-events: events where the member owns a pass (attending only does not count). */
export const listOwnedEvents = ticketing<'member', undefined>(async (context, _input, { tiEvents }) => ({
  body: {
    items: (await tiEvents.listOwnedEvents({ resourceId: context.resource.id, userId: context.caller.user.id }, READ)).items.map(
      serializeTiEvent,
    ),
  },
}));

/**
 * GET /user/ti-event-tickets: the member's passes (owned or assigned) grouped by event and
 * ticket; `{}` when there is none. The member context already proves the relationship.
 */
export const listTicketGroups = ticketing<'member', undefined>(async (context, _input, { tiEvents }) => {
  const groups = await tiEvents.listTicketGroups({ resourceId: context.resource.id, userId: context.caller.user.id }, READ);
  return { body: serializeTicketGroups(groups.events) };
});

/** POST /ti-event/ticket/pass/authorization: `authorization_token` (JSON or form), no member token. */
export const passAuthorizationRequest = fromFields({ authorization_token: text.transform((value) => value.trim()) });

export const passAuthorization = ticketing<'guestWithResource', z.output<typeof passAuthorizationRequest>>(
  async (context, input, { recovery }) => {
    const result = await recovery.signInWithPassToken({
      resourceId: context.resource.id,
      token: input.authorization_token,
      client: clientOf(context),
    });
    return { body: serializeSessionResult(result) };
  },
);
