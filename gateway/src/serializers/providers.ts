import type { Category, Interest, InterestFlag, MemberResult, SyncChoice } from '@masthead/proto/integrations/audience';
import type { CrmTag } from '@masthead/proto/integrations/crm';
import type { ListRecord, ListState } from '@masthead/proto/integrations/listmgr';

/** Wire shapes of the email-list and CRM operations (document 2 H; docs/adr/0162). */

type Json = Record<string, unknown>;

const without = (fields: Json | undefined, ...names: string[]): Json =>
  Object.fromEntries(Object.entries(fields ?? {}).filter(([name]) => !names.includes(name)));

/**
 * An interest: `id`, the normalized `name`, then the provider's other fields except
 * category_id, list_id, display_order and _links (document 2 H).
 */
export const serializeInterest = (interest: Interest): Json => ({
  id: interest.id,
  name: interest.name,
  ...without(interest.fields, 'id', 'name', 'category_id', 'list_id', 'display_order', '_links'),
});

/** A group of GET categories: the provider's category (`id` first, no list_id or _links) with its interests. */
export const serializeCategory = (category: Category): Json => ({
  id: category.id,
  ...without(category.fields, 'id', 'list_id', '_links', 'interests'),
  interests: category.interests.map(serializeInterest),
});

export const serializeInterestFlag = (flag: InterestFlag): Json => ({ id: flag.id, name: flag.name, subscribed: flag.subscribed });

/**
 * A member write (subscribe, subscriber-info, unsubscribe): the provider's member fields at the
 * top level without _links, `interests` and `merge_fields` as arrays, and `user_id`; the
 * provider's error object with `user_id` when it refused (a 200 by the spec); `user_id` alone
 * when it did not answer.
 */
export function serializeMemberResult(result: MemberResult): Json {
  if (result.member) {
    return {
      ...without(result.member, '_links'),
      interests: result.interests.map(serializeInterestFlag),
      merge_fields: result.mergeFields.map((field) => ({ key: field.key, name: field.name ?? null, value: field.value ?? null })),
      user_id: result.userId,
    };
  }
  if (result.providerError) return { ...result.providerError, user_id: result.userId };
  return { user_id: result.userId };
}

export const serializeSyncChoice = (choice: SyncChoice): Json => ({
  key: choice.key,
  name: choice.name,
  type: choice.type,
  required: choice.required,
});

/** The CRM tag record (document 2 H); `allowed_for_user` is never sent. */
export const serializeCrmTag = (tag: CrmTag): Json => ({
  id: tag.id,
  resource_id: tag.resourceId,
  tag_id: tag.tagId,
  tag_type: tag.tagType,
  tag: tag.tag,
  description: tag.description,
  subscriber_count: tag.subscriberCount,
  allowed_for_users: tag.allowedForUsers,
  required: tag.required,
});

/** The list record (document 2 H): the resource's flags stay operator data. */
export const serializeListRecord = (list: ListRecord): Json => ({
  id: list.id,
  list_id: list.listId,
  list_name: list.listName,
  client_name: list.clientName,
  confirmed_opt: list.confirmedOpt,
  unsubscribe_settings: list.unsubscribeSettings,
});

/** A list's state (GET interests, subscribe, unsubscribe); `updating` is fixed false (document 2 H). */
export function serializeListState(row: ListState): Json {
  const list = row.list;
  const body: Json = {
    list_id: list?.listId ?? '',
    list_name: list?.listName ?? '',
    confirmed_opt: list?.confirmedOpt ?? false,
    unsubscribe_settings: list?.unsubscribeSettings ?? '',
    subscribed: row.subscribed,
    state: row.state,
    updating: false,
  };
  if (row.error)
    Object.assign(body, { error: row.error.error, error_description: row.error.errorDescription, req_guid: row.error.reqGuid });
  return body;
}
