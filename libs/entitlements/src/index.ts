/**
 * `@masthead/entitlements`: verifies the entitlement tokens Masthead hands out beside its session
 * tokens, where a paywall runs (a CDN's edge function, a server): no call to Masthead per page
 * view, only a cached key set (README, "Paywall at the edge").
 */
export {
  ENTITLEMENT_TOKEN_TYPE,
  REVOCATION_LIST_TYPE,
  SIGNING_ALGORITHMS,
  hasEventPass,
  hasPlan,
  type EntitlementClaims,
  type PassEntitlement,
  type PlanEntitlement,
} from './claims.js';
export { EntitlementTokenRefused, type RefusalReason } from './errors.js';
export { createVerifier, verify, type Verifier, type VerifyOptions } from './verifier.js';
