import { defineError } from '@masthead/core/errors';

/** Thrown when a credential write lost every attempt to concurrent writes of the same scope. */
export const credentialsContended = defineError({
  status: 503,
  code: 'service_unavailable',
  description: 'The account is being changed concurrently; try again',
});
