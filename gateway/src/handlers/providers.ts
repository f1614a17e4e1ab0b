import { fieldError, incorrectDataNotAcceptable } from '@masthead/core/errors';
import type { ProviderScope } from '@masthead/proto/integrations/provider_scope';
import { z } from 'zod';
import type { MemberScopeContext } from '../auth/context.js';
import { crmBodyNotJson, crmTagsRequired } from '../errors/providers.js';
import { lastQueryValue, raise, rawRequest, type RawRequest } from '../http/request.js';
import { documentedAs, jsonBodyDocument } from '../openapi/hints.js';
import type { Handler } from '../routes/define.js';
import {
  serializeCategory,
  serializeCrmTag,
  serializeInterest,
  serializeInterestFlag,
  serializeListRecord,
  serializeListState,
  serializeMemberResult,
  serializeSyncChoice,
} from '../serializers/providers.js';

/**
 * The email-list and CRM provider operations (document 2 H: `audience`, `crm`, `listmgr`;
 * OPERATIONS.md 89-97, 157-162; docs/adr/0160-0163). The schemas decode each body's types;
 * integrations judges who the target is, the provider configuration and the provider's answers.
 */

type Json = Record<string, unknown>;

const READ = { idempotent: true };

/**
 * Bounds on one request's provider calls (docs/adr/0162): each list ID, duplicates included, is a
 * sequential provider call, and all must fit in the request's deadline.
 */
const MAX_LISTS = 50;
const MAX_TAGS = 100;

/** The member as integrations reads it: the ordinary session user (no provider replacement). */
const scopeOf = (context: MemberScopeContext): ProviderScope => ({ resourceId: context.resource.id, user: context.caller.user });

/**
 * `user_id`: absent, null, '', 0 or '0' is "not supplied"; a positive integer (or its digits) names
 * a user; anything else names no user (0), which an eligible caller gets 404 user_not_found for.
 */
export const userIdOf = (value: unknown): number | undefined => {
  if (value === undefined || value === null || value === '' || value === 0 || value === '0' || value === false) return undefined;
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 && value < 2 ** 31 ? value : 0;
  if (typeof value === 'string' && /^\d{1,9}$/.test(value.trim())) return Number(value.trim());
  return 0;
};

/** How the document shows `user_id` (decoded by `userIdOf`). */
const documentedUserId = z.union([z.number().int(), z.string()]).nullable().optional();

/** A JSON object field, or `{}` for anything else (a list, a text, absent). */
const objectField = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});

/** The body when it is a JSON object; undefined for a form, malformed, non-object or missing body. */
const jsonBodyOf = (raw: RawRequest): Json | undefined => (raw.form ? undefined : raw.json);

/* ---- audience (prefix /integrations/audience) ---- */

/** GET interests: `{items}` of the configured category. */
export const listAudienceInterests: Handler<'member'> = async (context, _input, { audience }) => ({
  body: { items: (await audience.listInterests({ scope: scopeOf(context) }, READ)).items.map(serializeInterest) },
});

/** GET categories: `{groups}`, each with its interests. */
export const listAudienceCategories: Handler<'member'> = async (context, _input, { audience }) => ({
  body: { groups: (await audience.listCategories({ scope: scopeOf(context) }, READ)).groups.map(serializeCategory) },
});

/** POST subscribe: a JSON object (406 incorrect_data otherwise); `merge_fields` and `interests` maps. */
export const audienceSubscribeRequest = documentedAs(
  rawRequest.transform((raw, ctx) => {
    const json = jsonBodyOf(raw);
    if (!json) return raise(ctx, incorrectDataNotAcceptable);
    return { userId: userIdOf(json['user_id']), mergeFields: objectField(json['merge_fields']), interests: objectField(json['interests']) };
  }),
  jsonBodyDocument({
    user_id: documentedUserId,
    merge_fields: z.record(z.unknown()).optional(),
    interests: z.record(z.unknown()).optional(),
  }),
);

export const audienceSubscribe: Handler<'member', z.output<typeof audienceSubscribeRequest>> = async (context, input, { audience }) => ({
  body: serializeMemberResult(await audience.subscribe({ scope: scopeOf(context), ...input })),
});

/** GET subscriber-info: `user_id` in the query (the last one when repeated). */
export const subscriberInfoRequest = documentedAs(
  rawRequest.transform((raw) => ({ userId: userIdOf(lastQueryValue(raw, 'user_id')) })),
  z.object({ query: z.object({ user_id: z.string().optional() }) }),
);

/** GET subscriber-info: the target's record, written subscribed first (the documented resubscribe). */
export const audienceSubscriberInfo: Handler<'member', z.output<typeof subscriberInfoRequest>> = async (
  context,
  { userId },
  { audience },
) => ({ body: serializeMemberResult(await audience.subscriberInfo({ scope: scopeOf(context), userId })) });

/** POST unsubscribe: no body, or a JSON object with `user_id`; a form or malformed body is 406. */
export const audienceUnsubscribeRequest = documentedAs(
  rawRequest.transform((raw, ctx) => {
    if (raw.form || raw.malformed) return raise(ctx, incorrectDataNotAcceptable);
    return { userId: userIdOf(raw.json?.['user_id']) };
  }),
  jsonBodyDocument({ user_id: documentedUserId }),
);

export const audienceUnsubscribe: Handler<'member', z.output<typeof audienceUnsubscribeRequest>> = async (
  context,
  { userId },
  { audience },
) => ({ body: serializeMemberResult(await audience.unsubscribe({ scope: scopeOf(context), userId })) });

/** POST add-tags: `{insert_tags}`, a list of tag names (or one name); 409 when none is given. */
export const addTagsRequest = documentedAs(
  rawRequest.transform((raw, ctx) => {
    const json = jsonBodyOf(raw);
    if (!json) return raise(ctx, incorrectDataNotAcceptable);
    const value = json['insert_tags'];
    const names = (Array.isArray(value) ? value : [value])
      .filter((name): name is string => typeof name === 'string')
      .map((name) => name.trim())
      .filter(Boolean);
    if (names.length === 0) return raise(ctx, () => fieldError({ insert_tags: 'insert_tags must be a non-empty list of tag names' }));
    const insertTags = [...new Set(names)];
    if (insertTags.length > MAX_TAGS) return raise(ctx, () => fieldError({ insert_tags: `insert_tags may name at most ${MAX_TAGS} tags` }));
    return { insertTags };
  }),
  jsonBodyDocument({ insert_tags: z.union([z.array(z.string()).max(MAX_TAGS), z.string()]) }),
);

export const audienceAddTags: Handler<'member', z.output<typeof addTagsRequest>> = async (context, { insertTags }, { audience }) => {
  const result = await audience.addTags({ scope: scopeOf(context), insertTags });
  return { body: result.result ? { result: true } : { result: false, ...result.providerError } };
};

/** GET member-interests: the configured interests with the member's flags. */
export const listAudienceMemberInterests: Handler<'member'> = async (context, _input, { audience }) => ({
  body: { items: (await audience.listMemberInterests({ scope: scopeOf(context) }, READ)).items.map(serializeInterestFlag) },
});

/** GET sync-choices: the list's merge fields. */
export const listAudienceSyncChoices: Handler<'member'> = async (context, _input, { audience }) => ({
  body: { items: (await audience.listSyncChoices({ scope: scopeOf(context) }, READ)).items.map(serializeSyncChoice) },
});

/* ---- crm (prefix /integrations/crm) ---- */

/** GET tags: stored tags members may see, no pagination. */
export const listCrmTags: Handler<'member'> = async (context, _input, { crm }) => ({
  body: { items: (await crm.listTags({ scope: scopeOf(context) }, READ)).items.map(serializeCrmTag) },
});

/** GET user/tags: a write at the provider (contact sync) before the read, so not retried. */
export const listCrmUserTags: Handler<'member'> = async (context, _input, { crm }) => ({
  body: { items: (await crm.listUserTags({ scope: scopeOf(context) })).items.map(serializeCrmTag) },
});

/**
 * PUT user/tags: `tags`, a non-empty map of stored tag ID → flag (a JSON list counts as a map
 * of its indexes, as PHP decodes it); 409 update_user_tag_error otherwise. Flags travel as sent:
 * integrations applies the truthiness rule and the event carries the map.
 */
export const crmUserTagsRequest = documentedAs(
  rawRequest.transform((raw, ctx) => {
    const json = jsonBodyOf(raw);
    if (!json) return raise(ctx, crmBodyNotJson);
    const value = json['tags'];
    const tags = Array.isArray(value)
      ? Object.fromEntries(value.map((flag, index) => [String(index), flag as unknown]))
      : objectField(value);
    if (Object.keys(tags).length === 0) return raise(ctx, crmTagsRequired);
    return { tags };
  }),
  jsonBodyDocument({ tags: z.union([z.record(z.unknown()), z.array(z.unknown())]) }),
);

export const updateCrmUserTags: Handler<'member', z.output<typeof crmUserTagsRequest>> = async (context, { tags }, { crm }) => ({
  body: { items: (await crm.updateUserTags({ scope: scopeOf(context), tags })).items.map(serializeCrmTag) },
});

/* ---- listmgr (prefix /integrations/listmgr) ---- */

/** GET get-lists (guest with `resource`): stored lists with show_list, by list_name. */
export const getListmgrLists: Handler<'guestWithResource'> = async (context, _input, { listmgr }) => ({
  body: { items: (await listmgr.getLists({ resourceId: context.resource.id }, READ)).items.map(serializeListRecord) },
});

/** GET interests: `user_id` in the query. */
export const listmgrInterestsRequest = subscriberInfoRequest;

export const listListmgrInterests: Handler<'member', z.output<typeof listmgrInterestsRequest>> = async (
  context,
  { userId },
  { listmgr },
) => ({
  // Not retried: the read refreshes the state cache, and a repeat could outlive the caller.
  body: { lists: (await listmgr.listInterests({ scope: scopeOf(context), userId })).lists.map(serializeListState) },
});

/** POST subscribe and unsubscribe: a JSON object (406) with `lists`, a non-empty list of provider list IDs (409). */
export const listmgrChangeRequest = documentedAs(
  rawRequest.transform((raw, ctx) => {
    const json = jsonBodyOf(raw);
    if (!json) return raise(ctx, incorrectDataNotAcceptable);
    const value = json['lists'];
    const lists = (Array.isArray(value) ? value : [])
      .filter((id) => typeof id === 'string' || typeof id === 'number')
      .map((id) => String(id).trim())
      .filter(Boolean);
    if (lists.length === 0) return raise(ctx, () => fieldError({ lists: 'lists must be a non-empty array of list IDs' }));
    if (lists.length > MAX_LISTS) return raise(ctx, () => fieldError({ lists: `lists may hold at most ${MAX_LISTS} list IDs` }));
    return { lists, userId: userIdOf(json['user_id']) };
  }),
  jsonBodyDocument({
    lists: z
      .array(z.union([z.string(), z.number()]))
      .min(1)
      .max(MAX_LISTS),
    user_id: documentedUserId,
  }),
);

export const listmgrSubscribe: Handler<'member', z.output<typeof listmgrChangeRequest>> = async (context, input, { listmgr }) => ({
  body: { lists: (await listmgr.subscribe({ scope: scopeOf(context), ...input })).lists.map(serializeListState) },
});

export const listmgrUnsubscribe: Handler<'member', z.output<typeof listmgrChangeRequest>> = async (context, input, { listmgr }) => ({
  body: { lists: (await listmgr.unsubscribe({ scope: scopeOf(context), ...input })).lists.map(serializeListState) },
});
