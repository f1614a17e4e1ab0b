import type { AsyncImplementation } from '@masthead/core/grpc';
import type { RenewalServiceService } from '@masthead/proto/billing/renewals';
import type { RenewalService } from '../renewals/renewal.service.js';

export function renewalHandlers(renewals: RenewalService): AsyncImplementation<typeof RenewalServiceService> {
  return {
    runDueRenewals: async () => renewals.runDue(),
  };
}
