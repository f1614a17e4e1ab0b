import { subscriptionNotFound, teamNotFound } from '@masthead/core/errors';
import { parsePageRequest, toPageQuery } from '@masthead/core/pagination';
import { z } from 'zod';
import type { MemberScopeContext } from '../auth/context.js';
import { isAdminRole } from '../auth/roles.js';
import { invalidAutorenew } from '../errors/catalog.js';
import { bodyNotJsonObject } from '../errors/request.js';
import { type pageRequest, parsedWith, pathId, raise } from '../http/request.js';
import { documentedAs } from '../openapi/hints.js';
import type { Handler } from '../routes/define.js';
import {
  serializeMembership,
  serializeMembershipChange,
  serializePaginator,
  serializePlan,
  serializeResourceMemberships,
  serializeUserPlan,
} from '../serializers/catalog.js';

/** Member routes of the catalog (document 1, sections C, E and F); ADR 0011. */

/** Page, limit and filter only, for the lists that read no order, by or sort. */
const pageAndFilter = parsedWith((query) => parsePageRequest({ page: query['page'], limit: query['limit'], filter: query['filter'] }));

export const pageAndFilterRequest = z.object({ query: pageAndFilter }).transform(({ query }) => query);
type Page = z.output<typeof pageRequest>;

const member = (context: MemberScopeContext) => ({ resourceId: context.resource.id, userId: context.caller.user.id });
const READ = { idempotent: true };

/** `{id}` of /user/subscriptions/{id}: the membership ID; anything else is not found. */
const membershipId = z.object({ id: pathId(subscriptionNotFound) });
export const membershipRequest = z.object({ params: membershipId }).transform(({ params }) => params);

/** GET /user/plans: distinct plans of the member's memberships, each with one `subscription`. */
export const listUserPlans: Handler<'member', Page> = async (context, page, { memberViews }) => {
  const admin = isAdminRole(context.caller.role);
  const result = await memberViews.listUserPlans({ ...member(context), query: toPageQuery(page) }, READ);
  return { body: { items: result.items.map((plan) => serializeUserPlan(plan, admin)), paginator: serializePaginator(result.paginator) } };
};

/** GET /user/teams/{team_id}/plans: seat plans, pricings with `users_limit`; no sorting option. */
export const teamPlansRequest = z
  .object({ params: z.object({ team_id: pathId(teamNotFound) }), query: pageAndFilter })
  .transform(({ params, query }) => ({ teamId: params.team_id, page: query }));

export const listTeamPlans: Handler<'member', z.output<typeof teamPlansRequest>> = async (context, { teamId, page }, { memberViews }) => {
  const admin = isAdminRole(context.caller.role);
  const result = await memberViews.listTeamPlans({ ...member(context), teamId, query: toPageQuery(page) }, READ);
  return {
    body: {
      items: result.items.map((plan) => serializePlan(plan, admin, { usersLimit: true })),
      paginator: serializePaginator(result.paginator),
    },
  };
};

/** GET /user/plans/history: the member's membership changes, paginated like the other lists. */
export const listMembershipHistory: Handler<'member', Page> = async (context, page, { memberships }) => {
  const result = await memberships.listMembershipHistory({ ...member(context), query: toPageQuery(page) }, READ);
  return { body: { items: result.items.map(serializeMembershipChange), paginator: serializePaginator(result.paginator) } };
};

/**
 * PUT /user/subscriptions/{id}: renewal flags. A JSON object is required (400 incorrect_data,
 * like PUT /sponsor/sponsored-subscriptions/{id}); `autorenew` must be a JSON boolean (409
 * invalid_autorenew: the string "true" or a form field does not count). Unknown keys are ignored.
 */
export const renewalRequest = documentedAs(
  z.object({ params: membershipId, form: z.boolean(), json: z.record(z.unknown()).optional() }).transform(({ params, form, json }, ctx) => {
    const body = form ? undefined : json;
    if (!body) return raise(ctx, bodyNotJsonObject);
    const autorenew = body['autorenew'];
    if (typeof autorenew !== 'boolean') return raise(ctx, invalidAutorenew);
    return { id: params.id, autorenew };
  }),
  z.object({ params: membershipId, json: z.object({ autorenew: z.boolean() }) }),
);

export const setMembershipRenewal: Handler<'member', z.output<typeof renewalRequest>> = async (
  context,
  { id, autorenew },
  { memberships },
) => {
  const admin = isAdminRole(context.caller.role);
  const membership = await memberships.setMembershipRenewal({ ...member(context), membershipId: id, autorenew });
  return { body: { item: serializeMembership(membership, admin) } };
};

/** DELETE /user/subscriptions/{id}: detaches the membership (it becomes inactive). */
export const detachMembership: Handler<'member', z.output<typeof membershipRequest>> = async (context, { id }, { memberships }) => {
  await memberships.detachMembership({ ...member(context), membershipId: id });
  return { body: { result: true } };
};

/**
 * GET /user/resources/subscriptions (document 1 E): page and limit paginate the resources;
 * `filter` is parsed and validated but not applied; order, by and sort are not read. A page
 * without resources is exactly `{items: [{resources: []}]}`, as the spec writes it.
 */
export const listResourceMemberships: Handler<'member', z.output<typeof pageAndFilterRequest>> = async (context, page, { memberViews }) => {
  const admin = isAdminRole(context.caller.role);
  const result = await memberViews.listResourceMemberships(
    {
      userId: context.caller.user.id,
      partnerId: context.resource.partnerId,
      query: toPageQuery({ ...page, filter: {} }),
    },
    READ,
  );
  if (result.items.length === 0) return { body: { items: [{ resources: [] }] } };
  return {
    body: {
      items: [{ resources: result.items.map((item) => serializeResourceMemberships(item, admin)) }],
      paginator: serializePaginator(result.paginator),
    },
  };
};
