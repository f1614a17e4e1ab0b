import { incorrectDataNotAcceptable, invalidRequestField, teamNotFound } from '@masthead/core/errors';
import { parsePageRequest, toPageQuery } from '@masthead/core/pagination';
import { z } from 'zod';
import { idOrZero, type pageRequest, parsedWith, pathId, raise, requiredJsonFields, sentAsIs, text } from '../http/request.js';
import { documentedAs } from '../openapi/hints.js';
import type { Handler } from '../routes/define.js';
import { serializePaginator } from '../serializers/catalog.js';
import { serializeInvitation, serializeManagedTeam, serializeTeamMember, serializeTeamOverview } from '../serializers/community.js';
import { communityCaller, resourceFlag } from './invitations.js';

/**
 * Teams, team members and team invites (document 2 C); docs/adr/0130-0133. The schemas decode
 * each body's types; community judges the rules that need its records (eligibility, duplicates,
 * seats, domains) and the lengths after sanitizing.
 */

type Page = z.output<typeof pageRequest>;

/** Bodies of section C are JSON objects: 406 incorrect_data otherwise (document 2 C). */
const body = <T extends z.ZodRawShape>(shape: T) => requiredJsonFields(incorrectDataNotAcceptable, shape);

/** A field that is sent, as text: '' when it is not text, which community refuses by name. */
const presentText = documentedAs(
  z.unknown().transform((value): string | undefined => (value === undefined ? undefined : text.parse(value))),
  z.string(),
);
/** The same for a field whose null means "not sent". */
const sentText = documentedAs(
  z.unknown().transform((value): string | undefined => (value === undefined || value === null ? undefined : text.parse(value))),
  z.string().nullable(),
);
/** A field that counts only as text (descriptions, names of invitees). */
const textOnly = documentedAs(
  z.unknown().transform((value): string | undefined => (typeof value === 'string' ? value : undefined)),
  z.string(),
);

/** An ID checked after the team's own checks (found, guard passed): malformed is its not-found. */
const laterId = idOrZero;

const teamId = pathId(teamNotFound);
const page = parsedWith(parsePageRequest);

export const teamRequest = z.object({ params: z.object({ team_id: teamId }) }).transform(({ params }) => ({ teamId: params.team_id }));
export const teamPageRequest = z
  .object({ params: z.object({ team_id: teamId }), query: page })
  .transform(({ params, query }) => ({ teamId: params.team_id, page: query }));
export const teamInviteRequest = z
  .object({ params: z.object({ team_id: teamId, invite_id: laterId }) })
  .transform(({ params }) => ({ teamId: params.team_id, inviteId: params.invite_id }));
export const teamMemberRequest = z
  .object({ params: z.object({ team_id: teamId, user_id: laterId }) })
  .transform(({ params }) => ({ teamId: params.team_id, userId: params.user_id }));

const READ = { idempotent: true };
const RESULT = { body: { result: true } };

/** GET /user/teams: teams the member owns or administers, each with its invites. */
export const listTeams: Handler<'member', Page> = async (context, query, { teams }) => {
  const result = await teams.listTeams({ caller: communityCaller(context), query: toPageQuery(query) }, READ);
  return { body: { items: result.items.map(serializeTeamOverview), paginator: serializePaginator(result.paginator) } };
};

/** POST /user/teams: `name` (required text), `description` (stored only when text). */
export const createTeamRequest = z
  .object({ json: body({ name: text, description: textOnly }) })
  .transform(({ json }) => ({ name: json.name, description: json.description }));

export const createTeam: Handler<'member', z.output<typeof createTeamRequest>> = async (context, fields, { teams }) => {
  const team = await teams.createTeam({
    caller: communityCaller(context),
    ...fields,
    autoAllowedDomains: resourceFlag(context, 'auto_allowed_domains_for_team'),
  });
  return { body: serializeManagedTeam(team) };
};

export const getTeam: Handler<'member', z.output<typeof teamRequest>> = async (context, { teamId }, { teams }) => ({
  body: serializeTeamOverview(await teams.getTeamDetail({ caller: communityCaller(context), teamId }, READ)),
});

/** PUT /user/teams/{team_id}: the display fields; a description sent as null clears it. */
export const updateTeamRequest = z
  .object({ params: z.object({ team_id: teamId }), json: body({ name: presentText, description: sentAsIs(z.string().nullable()) }) })
  .transform(({ params, json }) => ({
    teamId: params.team_id,
    name: json.name,
    description: typeof json.description === 'string' ? json.description : undefined,
    clearDescription: json.description !== undefined && typeof json.description !== 'string',
  }));

export const updateTeam: Handler<'member', z.output<typeof updateTeamRequest>> = async (context, fields, { teams }) => ({
  body: serializeManagedTeam(await teams.updateTeam({ caller: communityCaller(context), ...fields })),
});

export const deleteTeam: Handler<'member', z.output<typeof teamRequest>> = async (context, { teamId }, { teams }) => {
  await teams.deleteTeam({ caller: communityCaller(context), teamId });
  return RESULT;
};

/** GET /user/teams/{team_id}/users: non-owner relationships that are not removed. */
export const listTeamMembers: Handler<'member', z.output<typeof teamPageRequest>> = async (context, { teamId, page: query }, { teams }) => {
  const result = await teams.listTeamMembers({ caller: communityCaller(context), teamId, query: toPageQuery(query) }, READ);
  return { body: { items: result.items.map(serializeTeamMember), paginator: serializePaginator(result.paginator) } };
};

export const getTeamMember: Handler<'member', z.output<typeof teamMemberRequest>> = async (context, ids, { teams }) => ({
  body: serializeTeamMember(await teams.getTeamMember({ caller: communityCaller(context), ...ids }, READ)),
});

const INT32_MAX = 2 ** 31 - 1;
const isPricingId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value <= INT32_MAX;
const PRICING_ID_MESSAGE = 'subscription_id must be a Pricing ID';
const notAPricingId = () => invalidRequestField('subscription_id', PRICING_ID_MESSAGE, { subscription_id: PRICING_ID_MESSAGE });

/** PUT /user/teams/{team_id}/users/{user_id}: role, status, or the requested Pricing (null clears it). */
export const updateTeamMemberRequest = z
  .object({
    params: z.object({ team_id: teamId, user_id: laterId }),
    json: body({ role: presentText, status: presentText, subscription_id: sentAsIs(z.number().int().min(1).nullable()) }),
  })
  .transform(({ params, json }, ctx) => {
    const pricing = json.subscription_id;
    if (pricing !== undefined && pricing !== null && !isPricingId(pricing)) return raise(ctx, notAPricingId);
    return {
      teamId: params.team_id,
      userId: params.user_id,
      role: json.role,
      status: json.status,
      pricingId: pricing === undefined ? undefined : (pricing ?? 0),
    };
  });

export const updateTeamMember: Handler<'member', z.output<typeof updateTeamMemberRequest>> = async (context, fields, { teams }) => ({
  body: serializeTeamMember(await teams.updateTeamMember({ caller: communityCaller(context), ...fields })),
});

/** DELETE /user/teams/{team_id}/users/{user_id}: the relationship is marked removed. */
export const removeTeamMember: Handler<'member', z.output<typeof teamMemberRequest>> = async (context, ids, { teams }) => ({
  body: serializeTeamMember(await teams.removeTeamMember({ caller: communityCaller(context), ...ids })),
});

export const suspendTeamMember: Handler<'member', z.output<typeof teamMemberRequest>> = async (context, ids, { teams }) => ({
  body: serializeTeamMember(await teams.suspendTeamMember({ caller: communityCaller(context), ...ids })),
});

/**
 * POST /user/teams/{team_id}/invites (document 2 C): `subscription_id` an integer (else 0, which
 * community refuses as invalid_subscription_id), `resource_id` compared as text with the header
 * resource, `title` and `code` judged when sent and not null.
 */
export const createTeamInviteRequest = z
  .object({
    params: z.object({ team_id: teamId }),
    json: body({
      email: text,
      subscription_id: sentAsIs(z.number().int().min(1)),
      user_name: textOnly,
      title: sentText,
      description: textOnly,
      resource_id: sentAsIs(z.union([z.string(), z.number()]).nullable()),
      code: sentText,
    }),
  })
  .transform(({ params, json }) => ({
    teamId: params.team_id,
    email: json.email,
    pricingId: isPricingId(json.subscription_id) ? json.subscription_id : 0,
    userName: json.user_name,
    title: json.title,
    description: json.description,
    resourceId: json.resource_id === undefined || json.resource_id === null ? undefined : String(json.resource_id),
    code: json.code,
  }));

export const createTeamInvite: Handler<'member', z.output<typeof createTeamInviteRequest>> = async (context, fields, { invitations }) => ({
  status: 201,
  body: serializeInvitation(await invitations.createTeamInvite({ caller: communityCaller(context), ...fields })),
});

export const listTeamInvites: Handler<'member', z.output<typeof teamPageRequest>> = async (
  context,
  { teamId, page: query },
  { invitations },
) => {
  const result = await invitations.listTeamInvites({ caller: communityCaller(context), teamId, query: toPageQuery(query) }, READ);
  return { body: { items: result.items.map(serializeInvitation), paginator: serializePaginator(result.paginator) } };
};

export const getTeamInvite: Handler<'member', z.output<typeof teamInviteRequest>> = async (context, ids, { invitations }) => ({
  body: serializeInvitation(await invitations.getTeamInvite({ caller: communityCaller(context), ...ids }, READ)),
});

/** PUT /user/teams/{team_id}/invites/{invite_id}: the display fields; email, code and Pricing stay. */
export const updateTeamInviteRequest = z
  .object({
    params: z.object({ team_id: teamId, invite_id: laterId }),
    json: body({ title: sentText, description: textOnly, user_name: textOnly }),
  })
  .transform(({ params, json }) => ({
    teamId: params.team_id,
    inviteId: params.invite_id,
    title: json.title,
    description: json.description,
    userName: json.user_name,
  }));

export const updateTeamInvite: Handler<'member', z.output<typeof updateTeamInviteRequest>> = async (context, fields, { invitations }) => ({
  body: serializeInvitation(await invitations.updateTeamInvite({ caller: communityCaller(context), ...fields })),
});

export const deleteTeamInvite: Handler<'member', z.output<typeof teamInviteRequest>> = async (context, ids, { invitations }) => {
  await invitations.deleteTeamInvite({ caller: communityCaller(context), ...ids });
  return RESULT;
};

/**
 * POST .../resend, also under /admin: the same guard (the prefix is not a permission); the
 * invite event again, without revalidation or dedupe; `result` is not delivery.
 */
export const resendTeamInvite: Handler<'member', z.output<typeof teamInviteRequest>> = async (context, ids, { invitations }) => {
  await invitations.resendTeamInvite({ caller: communityCaller(context), ...ids });
  return RESULT;
};
