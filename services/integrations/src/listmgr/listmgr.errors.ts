import { defineError } from '@masthead/core/errors';

/** RemoveList (operators) for a provider list ID the resource has not stored. */
export const listNotFound = defineError({ status: 404, code: 'listmgr_list_not_found', description: 'No stored list has this list_id' });

/* A list's failure inside POST subscribe or unsubscribe: `error` and `error_description` of that
 * list's row in the 200 result (document 2 H: the caught per-list exception); never a status. */

/** A custom field value over the provider's 250 characters (document 2 H Limits): no call made. */
export const listValueTooLong = defineError(
  { status: 409, code: 'listmgr_value_too_long', description: 'The value of custom field <key> is longer than 250 characters' },
  (key: string) => ({ description: `The value of custom field ${key} is longer than 250 characters` }),
);

/** The provider refused the change; the description carries its message and code. */
export const listProviderRefused = defineError(
  { status: 409, code: 'listmgr_provider_error', description: '<the provider message> (code <the provider code>)' },
  (description: string) => ({ description }),
);

/** The provider did not answer within the call's deadline (retries included). */
export const listProviderUnavailable = defineError({
  status: 503,
  code: 'listmgr_provider_unavailable',
  description: 'The list provider did not answer',
});
