import { defineError } from '@masthead/core/errors';

/** Thrown when a service-account ID names no account. */
export const serviceAccountNotFound = defineError({
  status: 404,
  code: 'service_account_not_found',
  description: 'Service account not found',
});

/** Thrown by CreateServiceAccount when `user_id` names a user that is not a service-account user. */
export const notAServiceAccountUser = defineError({
  status: 400,
  code: 'invalid_user_id',
  description: 'user_id must name a service-account user',
});

/** Thrown by SetServiceAccountStatus on a revoked account: revocation is final. */
export const serviceAccountRevoked = defineError({
  status: 409,
  code: 'service_account_revoked',
  description: 'A revoked service account cannot change status',
});

/** Thrown by SetServiceAccountStatus when the status is neither active nor suspended. */
export const invalidServiceAccountStatus = defineError({
  status: 400,
  code: 'invalid_status',
  description: 'status must be active or suspended',
});

/** Thrown by ReportUsage when one report carries more entries than a batch may. */
export const tooManyUsages = defineError(
  { status: 400, code: 'invalid_usages', description: 'At most <MAX_USAGE_BATCH> usage entries a call' },
  (max: number) => ({ description: `At most ${max} usage entries a call` }),
);
