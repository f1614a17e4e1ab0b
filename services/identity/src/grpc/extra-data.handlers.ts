import type { AsyncImplementation } from '@masthead/core/grpc';
import type {
  ExtraDataRow,
  ExtraDataRows,
  ExtraDataScope as ScopeMessage,
  ExtraDataServiceService,
} from '@masthead/proto/identity/extra_data';
import {
  CUSTOM_FIELDS_GROUP,
  parseCustomFieldKey,
  parseCustomFieldWrites,
  parseGroupDeletes,
  parseGroupWrites,
} from '../extra-data/extra-data.command.js';
import type { ExtraDataScope } from '../extra-data/extra-data.repository.js';
import type { ExtraDataService } from '../extra-data/extra-data.service.js';

/** A missing scope names no member, which the service refuses as user_not_exists. */
const scopeOf = (scope: ScopeMessage | undefined): ExtraDataScope => ({ resourceId: scope?.resourceId ?? 0, userId: scope?.userId ?? 0 });

const toRows = (rows: ExtraDataRow[]): ExtraDataRows => ({ rows });

/** gRPC face of document 2, section A: request lists are parsed here, at the service's edge. */
export function extraDataHandlers(service: ExtraDataService): AsyncImplementation<typeof ExtraDataServiceService> {
  return {
    listExtraData: async (scope) => toRows(await service.list(scopeOf(scope))),

    putExtraData: async ({ scope, extraGroups }) => toRows(await service.put(scopeOf(scope), parseGroupWrites(extraGroups))),

    deleteExtraData: async ({ scope, extraGroups }) => {
      await service.remove(scopeOf(scope), parseGroupDeletes(extraGroups));
      return {};
    },

    listCustomFields: async (scope) => toRows(await service.list(scopeOf(scope), CUSTOM_FIELDS_GROUP)),

    putCustomFields: async ({ scope, customFields }) =>
      toRows(await service.put(scopeOf(scope), parseCustomFieldWrites(customFields), CUSTOM_FIELDS_GROUP)),

    deleteCustomField: async ({ scope, fieldKey }) => {
      await service.remove(scopeOf(scope), [parseCustomFieldKey(fieldKey)]);
      return {};
    },
  };
}
