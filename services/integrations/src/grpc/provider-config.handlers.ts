import type { AsyncImplementation } from '@masthead/core/grpc';
import type { ProviderConfigServiceService } from '@masthead/proto/integrations/provider_config';
import type { ProviderName } from '../provider-config/provider-config.schema.js';
import { parseProvider, type ProviderConfigService } from '../provider-config/provider-config.service.js';
import { toConfigSummary } from './providers.wire.js';

export function providerConfigHandlers(configs: ProviderConfigService): AsyncImplementation<typeof ProviderConfigServiceService> {
  const settings = async (resourceId: number, provider: ProviderName, input: Record<string, unknown>) =>
    toConfigSummary(resourceId, provider, await configs.setSettings(resourceId, provider, input));
  return {
    setProviderSecret: async ({ resourceId, provider, secret }) =>
      toConfigSummary(resourceId, provider, await configs.setSecret(resourceId, provider, secret)),
    setAudienceSettings: ({ resourceId, listId, interestCategory, server }) =>
      settings(resourceId, 'audience', { list_id: listId, interest_category: interestCategory, server }),
    setCrmSettings: ({ resourceId, accountName, active }) => settings(resourceId, 'crm', { account_name: accountName, active }),
    setListmgrSettings: ({ resourceId, clientId, customFields, consentToTrack }) =>
      settings(resourceId, 'listmgr', {
        client_id: clientId,
        custom_fields: customFields,
        consent_to_track: consentToTrack || undefined,
      }),
    getProviderConfig: async ({ resourceId, provider }) =>
      toConfigSummary(resourceId, parseProvider(provider), await configs.get(resourceId, provider)),
  };
}
