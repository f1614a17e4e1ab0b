import { isServiceError } from '@masthead/core/errors';

/** 4xx answers that are no verdict on the grant: a parallel grant running, a peer out of capacity. */
const NOT_A_VERDICT = new Set(['membership_pending', 'service_unavailable']);

/**
 * Whether a failed membership grant was refused for good: catalog answered with its own 4xx
 * (an unknown Pricing, a bad request), so no membership exists and none will from this claim.
 * Anything else — a deadline, an outage, a 5xx, a parallel grant of the same membership
 * running — leaves the grant unknown: it may have happened, so the claims
 * stay and the grant is finished later (docs/adr/0233).
 */
export const isGrantRefused = (error: unknown): boolean =>
  isServiceError(error) && error.status >= 400 && error.status < 500 && !NOT_A_VERDICT.has(error.code);
