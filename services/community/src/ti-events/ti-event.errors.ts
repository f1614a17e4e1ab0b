import { defineError } from '@masthead/core/errors';

/** The event is missing, inactive or of another resource (document 2 F). */
export const tiEventsNotFound = defineError({ status: 404, code: 'ti_events_not_found', description: 'Event not found' });
/** An event read failed unexpectedly (document 2 F: "caught exception"). */
export const tiEventsFailed = defineError({ status: 409, code: 'ti_events', description: 'Events could not be read' });
/** A ticket or pass-group read failed unexpectedly (document 2 F: "caught exception"). */
export const tiEventTicketsFailed = defineError({ status: 409, code: 'ti_event_tickets', description: 'Tickets could not be read' });
