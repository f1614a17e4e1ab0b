import type { AsyncImplementation } from '@masthead/core/grpc';
import type { BillingServiceService } from '@masthead/proto/billing';

/** BillingService has no rpcs yet; each domain folder adds its handlers here. */
export function billingHandlers(): AsyncImplementation<typeof BillingServiceService> {
  return {};
}
