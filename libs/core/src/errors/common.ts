import { defineError } from './catalogue.js';
import type { FieldErrors } from './service-error.js';

/*
 * The codes more than one process raises with one meaning: the spec's shared codes (document 1,
 * Errors), the transport's own codes, and domain codes that the gateway checks before a service
 * does. Everything else lives in its domain's `*.errors.ts` (ADR 0108).
 */

/** Thrown when the `resource` key is missing or names no resource (document 1, shared codes). */
export const resourceNotExists = defineError({ status: 404, code: 'resource_not_exists', description: 'Resource does not exist' });

/** Thrown when an operation needs a signed-in caller and none was resolved. */
export const authFailed = defineError({ status: 401, code: 'auth_failed', description: 'Authentication required' });

/** Thrown when the account is inactive or its relationship with the resource is locked or suspended. */
export const authAccessFail = defineError({
  status: 401,
  code: 'auth_access_fail',
  description: 'Account is inactive or its access to this resource is locked',
});

/** Thrown when the caller's role or service-account grants do not permit the operation. */
export const accessDenied = defineError({ status: 403, code: 'access', description: 'Access denied' });

/** Thrown when the session token has passed its expiry. */
export const tokenExpired = defineError({ status: 401, code: 'token_expired', description: 'Session token has expired' });

/** Thrown when a session is used after its refresh token was replayed (the session is burnt). */
export const tokenCompromised = defineError({ status: 401, code: 'token_compromised', description: 'Session token is compromised' });

/** Thrown when the user an operation names (or the caller) does not exist, or is not in the resource. */
export const userNotExist = defineError({ status: 404, code: 'user_not_exist', description: 'User does not exist' });

/** Thrown when a member-facing email field is missing or is not a valid address. */
export const invalidEmail = defineError({ status: 409, code: 'invalid_email', description: 'A valid email is required' });

/** Thrown when a plan is absent, inactive (for member-facing reads) or of another resource. */
export const planNotFound = defineError({ status: 404, code: 'plan_not_found', description: 'Plan not found' });

/** Thrown when a subscription (a pricing or a membership, by the spec's paths) is absent or of another resource. */
export const subscriptionNotFound = defineError({ status: 404, code: 'subscription_not_found', description: 'Subscription not found' });

/** Thrown when no team has the ID (teams have no resource, so no resource filter applies). */
export const teamNotFound = defineError({ status: 404, code: 'team_not_found', description: 'Team not found' });

/** Thrown when a language ID names no language. */
export const languageNotFound = defineError({ status: 404, code: 'language_not_found', description: 'Language not found' });

/** Thrown by field validation: 409 with `error: true` and `error_fields` (document 2, Errors). */
export const fieldError = defineError({ status: 409, code: 'validation_failed', description: 'Invalid fields' }, (fields: FieldErrors) => ({
  fields,
}));

/** Thrown by a failed zod parse (`zodError`) of an operator command: `invalid_<first bad field>`, every bad field listed. */
export const invalidField = defineError(
  { status: 400, code: 'invalid_<field>', description: '<the first bad field’s message>' },
  (field: string, description: string, fields: FieldErrors) => ({ code: `invalid_${field}`, description, fields }),
);

/** `invalidField` for the spec's HTTP operations, whose field validation answers 409. */
export const invalidRequestField = defineError(
  { status: 409, code: 'invalid_<field>', description: '<the first bad field’s message>' },
  (field: string, description: string, fields: FieldErrors) => ({ code: `invalid_${field}`, description, fields }),
);

/** Anything that is not a ServiceError, where it escapes: its message never reaches a response. */
export const internalError = defineError({ status: 500, code: 'internal_error', description: 'Internal error' });

/** A peer call that failed without a ServiceError for another reason (a malformed error payload too). */
export const peerFailed = defineError({ status: 500, code: 'internal_error', description: 'An internal service did not answer' });

/** A peer that answers UNAVAILABLE without a ServiceError. */
export const peerUnavailable = defineError({ status: 503, code: 'service_unavailable', description: 'An internal service did not answer' });

/** A peer call that ran out of its deadline. */
export const peerDeadlineExceeded = defineError({
  status: 504,
  code: 'service_unavailable',
  description: 'An internal service did not answer',
});

/**
 * A service's own dependency (its database) cannot be reached: the service answers at once, and a
 * retry after a few seconds may succeed (docs/adr/0181).
 */
export const dependencyUnavailable = defineError({
  status: 503,
  code: 'service_unavailable',
  description: 'A service dependency is unavailable; try again shortly',
});

/** A peer that answers RESOURCE_EXHAUSTED without a ServiceError. */
export const peerExhausted = defineError({ status: 429, code: 'service_unavailable', description: 'An internal service did not answer' });

/** Thrown when a `filter` query parameter is not valid JSON (document 2: invalid_filter). */
export const invalidFilter = defineError({ status: 400, code: 'invalid_filter', description: 'filter is not valid JSON' });

/* Billing and account-request codes the gateway checks before billing or accounts does (document 1 D, document 2 J). */

/** Setup-intents and save-intents: the body is missing or not JSON (409). */
export const incorrectDataConflict = defineError({ status: 409, code: 'incorrect_data', description: 'The body must be JSON' });

/** Legacy customer creation, confirm-payment-method and account requests: the body is not a JSON object (406). */
export const incorrectDataNotAcceptable = defineError({
  status: 406,
  code: 'incorrect_data',
  description: 'The body must be a JSON object',
});

/** Setup-intents: `card_customer_id` missing or blank. The code keeps its quote characters. */
export const invalidCardCustomerId = defineError({
  status: 409,
  code: '"invalid_customer_id"',
  description: 'card_customer_id is required',
});

/** Save-intents: `setup_intent.payment_method` missing or blank (docs/adr/0122). */
export const invalidPaymentMethod = defineError({
  status: 409,
  code: 'invalid_payment_method',
  description: 'setup_intent.payment_method is required',
});

/** A saved payment source that is not the member's, or a source type that names none. */
export const paymentSourceNotFound = defineError({
  status: 404,
  code: 'payment_source_not_found',
  description: 'Payment source not found',
});

/** POST /user/cardprovider/customer: `customer_id` (a provider token) missing or blank. */
export const incorrectCustomerId = defineError({
  status: 406,
  code: 'incorrect_customer_id',
  description: 'customer_id must be a provider token',
});

/** POST /user/cardprovider/token: `token` missing or blank. */
export const incorrectToken = defineError({ status: 406, code: 'incorrect_token', description: 'token must be a provider token' });

/** `{id}` of /user/cardprovider/customer/{id} is not one of the member's legacy customers. */
export const customerNotFound = defineError({ status: 404, code: 'customer_not_found', description: 'Customer not found' });

/**
 * POST /admin/integrations/cardprovider/connect: `code` missing or blank (gateway), or refused by
 * the card provider as unknown, expired, already used or another platform's (billing;
 * docs/adr/0126). 409 like the modern card-provider siblings.
 */
export const invalidConnectCode = defineError({
  status: 409,
  code: 'invalid_code',
  description: 'code must be an unused authorization code from the card provider',
});

/**
 * POST /admin/integrations/cardprovider/connect: `state` missing (gateway), or not a live state
 * this admin obtained for this resource and mode from GET …/connect (unknown, expired, used,
 * another admin's or resource's: all answered alike; billing, docs/adr/0126).
 */
export const invalidConnectState = defineError({
  status: 409,
  code: 'invalid_state',
  description: 'state must be the value of a recent GET /admin/integrations/cardprovider/connect, used once',
});

/** An account request ID that names no record (document 2 J). */
export const accountRequestNotExists = defineError({
  status: 404,
  code: 'account_request_not_exists',
  description: 'Account request not found',
});

/* Transactions and checkout codes the gateway checks before billing does (document 2 G; docs/adr/0142). */

/** A transaction that does not exist, that the caller may not see, or a path ID that names none (document 2 G). */
export const transactionNotExists = defineError({ status: 404, code: 'transaction_not_exists', description: 'Transaction does not exist' });

/** Checkout: `items` is not a non-empty array of objects (at most 20). */
export const invalidItems = defineError({
  status: 409,
  code: 'invalid_items',
  description: 'items must be a non-empty array (at most 20) of {item_type, item_key}',
});

/**
 * Ticket sales, answered by community's ticket inventory and by billing's checkout alike:
 * a purchase line's `quantity` is not a whole number from 1 to 100.
 */
export const invalidQuantity = defineError({ status: 409, code: 'invalid_quantity', description: 'quantity must be between 1 and 100' });

/** Fewer tickets are left than a purchase asks for: nothing was reserved or charged (docs/adr/0151). */
export const ticketsSoldOut = defineError({ status: 409, code: 'ti_event_tickets_sold_out', description: 'Not enough tickets left' });

/**
 * Thrown when an internal call arrives without the caller's scope it needs, or with a resource or
 * member ID that is not positive: a bug in the calling process, never a tenant of its own. A
 * missing scope once decoded as resource 0 and user 0, a scope that matched records of no
 * resource, or of every resource where a filter left the resource out.
 */
export const callerScopeMissing = defineError(
  { status: 400, code: 'incorrect_data', description: '<what> scope missing' },
  (what: string) => ({ description: `${what} scope missing` }),
);
