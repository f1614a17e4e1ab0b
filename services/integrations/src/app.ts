import type { ServiceRegistration } from '@masthead/core/grpc';
import type { Logger } from '@masthead/core/logging';
import { openServiceRuntime, serveRuntime, type RunningService } from '@masthead/core/service';
import { IntegrationsServiceService } from '@masthead/proto/integrations';
import type { IntegrationsConfig } from './config.js';
import { integrationsHandlers } from './grpc/handlers.js';
import { startPlatformAreas } from './platform.js';
import { startProvidersModule } from './providers.module.js';

export type { IntegrationsConfig } from './config.js';
export { integrationsEnv, loadIntegrationsConfig } from './config.js';

/**
 * Composition root: config → connections → repositories → domain → gRPC handlers. The database
 * and the event publisher are open already; domain folders add repositories and services here.
 */
export async function startIntegrationsService(config: IntegrationsConfig, logger?: Logger): Promise<RunningService> {
  const runtime = await openServiceRuntime('integrations', config, logger);
  const service: ServiceRegistration<typeof IntegrationsServiceService> = {
    name: 'masthead.integrations.v1.IntegrationsService',
    definition: IntegrationsServiceService,
    implementation: integrationsHandlers(),
  };
  const providers = await startProvidersModule(runtime, config);
  // Templates, resource and captcha settings, event submission, signed outbound webhooks.
  const platform = await startPlatformAreas(runtime, config);
  return serveRuntime(runtime, config.GRPC_LISTEN, [service, ...providers.services, ...platform.services], async () => {
    await platform.stop();
    await providers.stop();
  });
}
