import { defineError } from '@masthead/core/errors';

// A replayed refresh token burns its session: `tokenCompromised` (@masthead/core/errors), which
// the gateway's shared checks raise as well.

/** Thrown when a refresh token is unknown, revoked or expired. */
export const refreshFailed = defineError({ status: 401, code: 'refresh_failed', description: 'Refresh token is invalid or expired' });

/** Thrown when an authorization code is unknown, expired or already used (OAuth `invalid_grant`). */
export const invalidGrant = defineError({
  status: 400,
  code: 'invalid_grant',
  description: 'Authorization code is invalid, expired or already used',
});
