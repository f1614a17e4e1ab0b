import { defineError } from '../errors/index.js';

/** Thrown by POST /user/event when `name` is missing, not a public event name, or the list could not be read (document 2 L). */
export const invalidEventName = defineError({ status: 409, code: 'invalid_event_name', description: 'Invalid event name' });

/** Thrown by POST /user/event when `value` is missing or empty once tags are stripped, or longer than 2,048 characters. */
export const invalidEventValue = defineError({ status: 409, code: 'invalid_event_value', description: 'Invalid event value' });
