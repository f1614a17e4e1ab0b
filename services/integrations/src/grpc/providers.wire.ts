import type { CrmTag } from '@masthead/proto/integrations/crm';
import type { ListRecord as ListRecordMessage, ListState as ListStateMessage } from '@masthead/proto/integrations/listmgr';
import type { ProviderConfigSummary } from '@masthead/proto/integrations/provider_config';
import type { ProviderScope } from '@masthead/proto/integrations/provider_scope';
import type { CrmTagRecord } from '../crm/crm-tag.schema.js';
import type { ListRecord } from '../listmgr/list.schema.js';
import type { ListState } from '../listmgr/listmgr.service.js';
import type { ProviderConfigRecord } from '../provider-config/provider-config.schema.js';

/** The scope message is required; a missing one is the gateway's bug, read as nobody. */
export const scopeOf = (scope: ProviderScope | undefined): ProviderScope => scope ?? { resourceId: 0 };

export const toCrmTag = (row: CrmTagRecord): CrmTag => ({
  id: row._id,
  resourceId: row.resource_id,
  tagId: row.tag_id,
  tagType: row.tag_type,
  tag: row.tag,
  description: row.description,
  subscriberCount: row.subscriber_count,
  allowedForUsers: row.allowed_for_users,
  required: row.required,
});

export const toListRecord = (row: ListRecord): ListRecordMessage => ({
  id: row._id,
  resourceId: row.resource_id,
  listId: row.list_id,
  listName: row.list_name,
  clientName: row.client_name,
  confirmedOpt: row.confirmed_opt,
  unsubscribeSettings: row.unsubscribe_settings,
  showList: row.show_list,
  requireList: row.require_list,
  allowedList: row.allowed_list,
});

/** `subscribed` is true only for the provider's State `Active` (document 2 H). */
export const toListState = ({ list, state, error }: ListState): ListStateMessage => ({
  list: toListRecord(list),
  subscribed: state === 'Active',
  state,
  error: error && { error: error.error, errorDescription: error.error_description, reqGuid: error.req_guid },
});

/** A configuration as operators see it: never the secret. */
export const toConfigSummary = (resourceId: number, provider: string, record: ProviderConfigRecord | null): ProviderConfigSummary => ({
  resourceId,
  provider,
  hasSecret: Boolean(record?.secret),
  secretLast4: record?.secret_last4 ?? '',
  keyId: record?.secret?.key_id ?? '',
  settings: record?.settings ?? {},
  updatedAt: record?.updated_at.toISOString() ?? '',
});
