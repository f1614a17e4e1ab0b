import { parseOrThrow } from '@masthead/core/errors';
import type { AsyncImplementation } from '@masthead/core/grpc';
import type { ListManagerServiceService } from '@masthead/proto/integrations/listmgr';
import { z } from 'zod';
import type { ListmgrService } from '../listmgr/listmgr.service.js';
import { scopeOf, toListRecord, toListState } from './providers.wire.js';

/** An operator's list: the provider list ID as the provider spells it, a name to sort by. */
const listFields = z.object({
  listId: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'list_id must be the provider list ID'),
  listName: z.string().trim().min(1, 'list_name is required').max(255),
  clientName: z.string().trim().max(255),
  confirmedOpt: z.boolean(),
  unsubscribeSettings: z.string().trim().max(64),
  showList: z.boolean(),
  requireList: z.boolean(),
  allowedList: z.boolean(),
});

export function listmgrHandlers(listmgr: ListmgrService): AsyncImplementation<typeof ListManagerServiceService> {
  return {
    getLists: async ({ resourceId }) => ({ items: (await listmgr.getLists(resourceId)).map(toListRecord) }),
    listInterests: async ({ scope, userId }) => ({ lists: (await listmgr.interests(scopeOf(scope), userId)).map(toListState) }),
    subscribe: async ({ scope, userId, lists }) => ({ lists: (await listmgr.subscribe(scopeOf(scope), userId, lists)).map(toListState) }),
    unsubscribe: async ({ scope, userId, lists }) => ({
      lists: (await listmgr.unsubscribe(scopeOf(scope), userId, lists)).map(toListState),
    }),
    upsertList: async ({ resourceId, ...input }) => {
      const fields = parseOrThrow(listFields, input);
      return toListRecord(
        await listmgr.upsertList(resourceId, {
          list_id: fields.listId,
          list_name: fields.listName,
          client_name: fields.clientName,
          confirmed_opt: fields.confirmedOpt,
          unsubscribe_settings: fields.unsubscribeSettings,
          show_list: fields.showList,
          require_list: fields.requireList,
          allowed_list: fields.allowedList,
        }),
      );
    },
    removeList: async ({ resourceId, listId }) => toListRecord(await listmgr.removeList(resourceId, listId.trim())),
    listStoredLists: async ({ resourceId }) => ({ items: (await listmgr.listStoredLists(resourceId)).map(toListRecord) }),
    getCachedStates: async ({ resourceId, email }) => {
      const row = await listmgr.cachedStates(resourceId, email);
      return {
        states: (row?.states ?? []).map(({ list_id, state }) => ({ listId: list_id, state })),
        expiresAt: row?.expires_at.toISOString() ?? '',
      };
    },
  };
}
