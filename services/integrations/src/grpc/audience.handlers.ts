import type { AsyncImplementation } from '@masthead/core/grpc';
import type { AudienceServiceService } from '@masthead/proto/integrations/audience';
import type { AudienceService } from '../audience/audience.service.js';
import { scopeOf } from './providers.wire.js';

export function audienceHandlers(audience: AudienceService): AsyncImplementation<typeof AudienceServiceService> {
  return {
    listInterests: async ({ scope }) => ({ items: await audience.interests(scopeOf(scope)) }),
    listCategories: async ({ scope }) => ({ groups: await audience.categories(scopeOf(scope)) }),
    subscribe: ({ scope, userId, mergeFields, interests }) =>
      audience.subscribe(scopeOf(scope), userId, mergeFields ?? {}, interests ?? {}),
    subscriberInfo: ({ scope, userId }) => audience.subscriberInfo(scopeOf(scope), userId),
    unsubscribe: ({ scope, userId }) => audience.unsubscribe(scopeOf(scope), userId),
    addTags: ({ scope, insertTags }) => audience.addTags(scopeOf(scope), insertTags),
    listMemberInterests: async ({ scope }) => ({ items: await audience.memberInterests(scopeOf(scope)) }),
    listSyncChoices: async ({ scope }) => ({ items: await audience.syncChoices(scopeOf(scope)) }),
  };
}
