import { defineError } from '@masthead/core/errors';

/** Thrown when the identity provider is not enabled for the resource. */
export const serviceNotActive = defineError({
  status: 409,
  code: 'service_not_active',
  description: 'The identity provider is not enabled for this resource',
});

/** Thrown by POST /idp/verify-token without a token (the spec's dynamic-text error). */
export const emptyIdpToken = defineError({ status: 400, code: 'Empty IdP Token', description: 'Empty IdP Token' });

/** Thrown when the `idp-token` header is missing. */
export const idpTokenRequired = defineError({ status: 409, code: 'verify_failed', description: 'The idp-token header is required' });

/**
 * Thrown when the provider refuses an ID token or the token is too long to be one; the
 * description says why (invalid, expired, revoked, account disabled), never the provider's text.
 */
export const idpTokenRejected = defineError(
  { status: 409, code: 'verify_failed', description: 'The IdP token is invalid' },
  (why?: string) => (why ? { description: why } : {}),
);

/** Thrown when a verified IdP token names no user (no subject). */
export const emptyUserId = defineError({ status: 409, code: 'empty_user_id', description: 'The IdP token names no user' });

/** Thrown when a provider identity carries no email to link by. */
export const idpEmailMissing = defineError({ status: 409, code: 'verify_failed', description: 'The IdP token carries no email' });

/** Thrown when linking an existing account to a provider identity whose email the provider has not verified. */
export const idpEmailUnverified = defineError({ status: 409, code: 'verify_failed', description: 'The IdP email is not verified' });

/** Thrown when the provider identity is linked to another account. */
export const idpIdentityTaken = defineError({
  status: 409,
  code: 'verify_failed',
  description: 'The IdP identity is linked to another account',
});

/** Thrown when a concurrent request is creating the same account. */
export const idpAccountBeingCreated = defineError({
  status: 409,
  code: 'verify_failed',
  description: 'The account is being created; retry',
});

/** Thrown when an invitation is too long, unknown or cannot be accepted by this member. */
export const invitationNotAcceptable = defineError({
  status: 409,
  code: 'verify_failed',
  description: 'The invitation cannot be accepted',
});

/** Thrown by the provider token exchange when the account is inactive or its relationship is blocked. */
export const idpAuthorizationFail = defineError({
  status: 401,
  code: 'authorization_fail',
  description: 'The account is inactive or its access to this resource is locked',
});

/** Thrown when the session of a provider sign-in cannot be issued. */
export const oauthFailed = defineError({ status: 400, code: 'oauth_failed', description: 'The session could not be issued' });

/** Thrown by a provider mail without a `continue_url` where one is needed. */
export const continueUrlRequired = defineError({ status: 409, code: 'invalid_continue_url', description: 'continue_url is required' });

/** Thrown by a provider mail whose `continue_url` is not on the resource's host. */
export const continueUrlNotOnHost = defineError({
  status: 409,
  code: 'invalid_continue_url',
  description: 'continue_url must be on the resource host',
});

/** Thrown when the member has no identity at the provider. */
export const idpNotLinked = defineError({
  status: 409,
  code: 'idp_not_linked',
  description: 'The member has no identity at the identity provider',
});

/**
 * Thrown when the provider refuses a request or cannot be reached: document 1 puts "dynamic
 * exception text" in `error`; the text is one of provider-errors.ts's safe texts, never the
 * provider's own message.
 */
export const providerFailure = defineError(
  { status: 400, code: '<safe provider text>', description: '<the same text>' },
  (text: string) => ({ code: text, description: text }),
);
