import type { AsyncImplementation } from '@masthead/core/grpc';
import type { CrmServiceService } from '@masthead/proto/integrations/crm';
import type { CrmTagRecord } from '../crm/crm-tag.schema.js';
import type { CrmService } from '../crm/crm.service.js';
import { scopeOf, toCrmTag } from './providers.wire.js';

const list = (rows: CrmTagRecord[]) => ({ items: rows.map(toCrmTag) });

export function crmHandlers(crm: CrmService): AsyncImplementation<typeof CrmServiceService> {
  return {
    listTags: async ({ scope }) => list(await crm.tags(scopeOf(scope))),
    listUserTags: async ({ scope }) => list(await crm.userTags(scopeOf(scope))),
    updateUserTags: async ({ scope, tags }) => list(await crm.updateUserTags(scopeOf(scope), tags ?? {})),
    importTags: async ({ resourceId }) => list(await crm.importTags(resourceId)),
    setTagFlags: async ({ resourceId, tagId, allowedForUsers, required }) =>
      toCrmTag(await crm.setTagFlags(resourceId, tagId, { allowed_for_users: allowedForUsers, required })),
    listStoredTags: async ({ resourceId }) => list(await crm.listStoredTags(resourceId)),
  };
}
