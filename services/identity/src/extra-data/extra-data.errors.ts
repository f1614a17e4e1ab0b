import { defineError } from '@masthead/core/errors';

/** Thrown when the member has no relationship with the resource whose extra data is asked for. */
export const noRelationship = defineError({
  status: 409,
  code: 'user_not_exists',
  description: 'The user has no relationship with this resource',
});

/** Thrown when a request list is not a nonempty array within the item limit. */
export const itemListInvalid = defineError(
  { status: 409, code: 'incorrect_data', description: '<list> must be a nonempty array of at most <max> items' },
  (list: string, max: number) => ({ description: `${list} must be a nonempty array of at most ${max} items` }),
);

/** Thrown by DELETE /user/extra/data/custom-fields/{field_key} when the key is empty or too long. */
export const fieldKeyInvalid = defineError(
  { status: 409, code: 'incorrect_data', description: 'field_key must be 1 to <max> characters' },
  (max: number) => ({ description: `field_key must be 1 to ${max} characters` }),
);

/** Thrown when reading extra data fails in storage (the cause is only logged). */
export const extraDataReadFailed = defineError({
  status: 409,
  code: 'error_get_user_extra_data',
  description: 'Extra data could not be read',
});

/** Thrown when saving extra data fails in storage (the cause is only logged). */
export const extraDataUpdateFailed = defineError({
  status: 409,
  code: 'error_update_user_extra_data',
  description: 'Extra data could not be saved',
});

/** Thrown when deleting extra data fails in storage (the cause is only logged). */
export const extraDataDeleteFailed = defineError({
  status: 409,
  code: 'error_delete_user_extra_data',
  description: 'Extra data could not be deleted',
});
