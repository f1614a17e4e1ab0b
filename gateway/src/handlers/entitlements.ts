import type { Handler } from '../routes/define.js';

/**
 * POST /user/entitlement-token (beyond the spec, docs/adr/0246): a new entitlement token for the
 * caller's session, listing what the member holds now, for a client whose token expired or whose
 * edge found it revoked.
 */
export const issueEntitlementToken: Handler<'member'> = async (context, _input, { entitlements }) => {
  const issued = await entitlements.issueEntitlementToken({
    userId: context.caller.user.id,
    resourceId: context.resource.id,
    sessionId: context.caller.sessionId,
  });
  return { body: { entitlement_token: issued.token, expires: issued.expires } };
};

/**
 * GET /entitlement-revocations (beyond the spec, docs/adr/0248): the resource's signed list of
 * sessions and members whose earlier tokens are stale, for edges that refuse them before they
 * expire; `max_age` says when to fetch it again.
 */
export const revocationList: Handler<'guestWithResource'> = async (context, _input, { entitlements }) => {
  const list = await entitlements.getRevocationList({ resourceId: context.resource.id }, { idempotent: true });
  return { body: { revocation_list: list.token, max_age: list.maxAgeSeconds } };
};
