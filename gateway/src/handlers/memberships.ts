import { httpError } from '@masthead/core/errors';
import { parsePageRequest, toPageQuery } from '@masthead/core/pagination';
import type { Request } from 'express';
import type { RequestContext } from '../auth/context.js';
import { isAdminRole } from '../auth/roles.js';
import { jsonObject } from '../http/body.js';
import {
  serializeMembership,
  serializeMembershipChange,
  serializePaginator,
  serializePlan,
  serializeResourceMemberships,
  serializeUserPlan,
} from '../serializers/catalog.js';
import type { RouteHandler } from './types.js';

/** Member routes of the catalog (document 1, sections C, E and F); ADR 0011. */

const PATH_ID = /^\d{1,9}$/;

const query = (req: Request) => req.query as Record<string, unknown>;

/** Page, limit and filter only, for the lists that read no order, by or sort. */
const pageAndFilter = (req: Request) =>
  parsePageRequest({ page: query(req)['page'], limit: query(req)['limit'], filter: query(req)['filter'] });

const member = (context: RequestContext) => ({ resourceId: context.resource!.id, userId: context.caller.user!.id });
const call = (context: RequestContext) => ({ requestId: context.requestId, idempotent: true });

/** `{id}` of /user/subscriptions/{id}: the membership ID; anything else is not found. */
function membershipId(req: Request): number {
  const id = String(req.params['id'] ?? '');
  if (!PATH_ID.test(id)) throw httpError(404, 'subscription_not_found', 'Subscription not found');
  return Number(id);
}

/** GET /user/plans: distinct plans of the member's memberships, each with one `subscription`. */
export const listUserPlans: RouteHandler = async (context, req, { catalog }) => {
  const admin = isAdminRole(context.caller.role);
  const page = parsePageRequest(query(req));
  const result = await catalog.listUserPlans({ ...member(context), query: toPageQuery(page) }, call(context));
  return { body: { items: result.items.map((plan) => serializeUserPlan(plan, admin)), paginator: serializePaginator(result.paginator) } };
};

/** GET /user/teams/{team_id}/plans: seat plans, pricings with `users_limit`; no sorting option. */
export const listTeamPlans: RouteHandler = async (context, req, { catalog }) => {
  const teamId = String(req.params['team_id'] ?? '');
  if (!PATH_ID.test(teamId)) throw httpError(404, 'team_not_found', 'Team not found');
  const admin = isAdminRole(context.caller.role);
  const page = pageAndFilter(req);
  const result = await catalog.listTeamPlans({ ...member(context), teamId: Number(teamId), query: toPageQuery(page) }, call(context));
  return {
    body: {
      items: result.items.map((plan) => serializePlan(plan, admin, { usersLimit: true })),
      paginator: serializePaginator(result.paginator),
    },
  };
};

/** GET /user/plans/history: the member's membership changes, paginated like the other lists. */
export const listMembershipHistory: RouteHandler = async (context, req, { catalog }) => {
  const page = parsePageRequest(query(req));
  const result = await catalog.listMembershipHistory({ ...member(context), query: toPageQuery(page) }, call(context));
  return { body: { items: result.items.map(serializeMembershipChange), paginator: serializePaginator(result.paginator) } };
};

/**
 * PUT /user/subscriptions/{id}: renewal flags. A JSON object is required (400 incorrect_data,
 * like PUT /sponsor/sponsored-subscriptions/{id}); `autorenew` must be a JSON boolean (409
 * invalid_autorenew: the string "true" or a form field does not count). Unknown keys are ignored.
 */
export const setMembershipRenewal: RouteHandler = async (context, req, { catalog }) => {
  const id = membershipId(req);
  const body = req.decoded.form ? undefined : jsonObject(req);
  if (!body) throw httpError(400, 'incorrect_data', 'The body must be a JSON object');
  const autorenew = body['autorenew'];
  if (typeof autorenew !== 'boolean') throw httpError(409, 'invalid_autorenew', 'autorenew must be a JSON boolean');
  const admin = isAdminRole(context.caller.role);
  const membership = await catalog.setMembershipRenewal(
    { ...member(context), membershipId: id, autorenew },
    { requestId: context.requestId },
  );
  return { body: { item: serializeMembership(membership, admin) } };
};

/** DELETE /user/subscriptions/{id}: detaches the membership (it becomes inactive). */
export const detachMembership: RouteHandler = async (context, req, { catalog }) => {
  const id = membershipId(req);
  await catalog.detachMembership({ ...member(context), membershipId: id }, { requestId: context.requestId });
  return { body: { result: true } };
};

/**
 * GET /user/resources/subscriptions (document 1 E): page and limit paginate the resources;
 * `filter` is parsed and validated but not applied; order, by and sort are not read. A page
 * without resources is exactly `{items: [{resources: []}]}`, as the spec writes it.
 */
export const listResourceMemberships: RouteHandler = async (context, req, { catalog }) => {
  const page = pageAndFilter(req);
  const admin = isAdminRole(context.caller.role);
  const result = await catalog.listResourceMemberships(
    {
      userId: context.caller.user!.id,
      partnerId: context.resource!.partnerId,
      query: toPageQuery({ ...page, filter: {} }),
    },
    call(context),
  );
  if (result.items.length === 0) return { body: { items: [{ resources: [] }] } };
  return {
    body: {
      items: [{ resources: result.items.map((item) => serializeResourceMemberships(item, admin)) }],
      paginator: serializePaginator(result.paginator),
    },
  };
};
