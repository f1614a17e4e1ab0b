import type { AsyncImplementation } from '@masthead/core/grpc';
import type { IntegrationsServiceService } from '@masthead/proto/integrations';

/** IntegrationsService has no rpcs yet; each domain folder adds its handlers here. */
export function integrationsHandlers(): AsyncImplementation<typeof IntegrationsServiceService> {
  return {};
}
