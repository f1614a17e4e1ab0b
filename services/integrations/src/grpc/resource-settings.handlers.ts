import type { AsyncImplementation } from '@masthead/core/grpc';
import type { ResourceSettingsServiceService } from '@masthead/proto/integrations/resource_settings';
import type { EmbeddedSettingsService } from '../settings/embedded-settings.service.js';

export function resourceSettingsHandlers(settings: EmbeddedSettingsService): AsyncImplementation<typeof ResourceSettingsServiceService> {
  return {
    getEmbeddedSettings: async ({ resourceId }) => {
      const embedded = await settings.get(resourceId);
      return { settings: embedded.settings, logo: embedded.logo ?? undefined };
    },
  };
}
