import type { ServiceRegistration } from '@masthead/core/grpc';
import type { Logger } from '@masthead/core/logging';
import { openServiceRuntime, serveRuntime, type RunningService } from '@masthead/core/service';
import { BillingServiceService } from '@masthead/proto/billing';
import type { BillingConfig } from './config.js';
import { billingHandlers } from './grpc/handlers.js';

export type { BillingConfig } from './config.js';
export { billingEnv, loadBillingConfig } from './config.js';

/**
 * Composition root: config → connections → repositories → domain → gRPC handlers. The database
 * and the event publisher are open already; domain folders add repositories and services here.
 */
export async function startBillingService(config: BillingConfig, logger?: Logger): Promise<RunningService> {
  const runtime = await openServiceRuntime('billing', config, logger);
  const service: ServiceRegistration<typeof BillingServiceService> = {
    name: 'masthead.billing.v1.BillingService',
    definition: BillingServiceService,
    implementation: billingHandlers(),
  };
  return serveRuntime(runtime, config.GRPC_LISTEN, [service]);
}
