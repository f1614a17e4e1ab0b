import type { AsyncImplementation } from '@masthead/core/grpc';
import type { ExternalPurchaseServiceService, ExternalScope as ScopeMessage } from '@masthead/proto/billing/external';
import type { ExternalOutcome, ExternalPurchaseService, ExternalScope } from '../external/external-purchase.service.js';
import { billingSettings } from '../support/resource-settings.js';
import { toTransaction } from './transactions.wire.js';

const scopeOf = (scope: ScopeMessage | undefined): ExternalScope => ({
  resourceId: scope?.resourceId ?? 0,
  resourceTitle: scope?.resourceTitle ?? '',
  settings: billingSettings(scope?.resourceSettings),
});

const toOutcome = (outcome: ExternalOutcome) => ({
  transaction: toTransaction(outcome.transaction),
  membership: outcome.membership ?? undefined,
  fallback: outcome.fallback ?? undefined,
  created: outcome.created,
});

export function externalHandlers(external: ExternalPurchaseService): AsyncImplementation<typeof ExternalPurchaseServiceService> {
  return {
    getExternalTransaction: async ({ resourceId, externalId }) => toTransaction(await external.find(resourceId, externalId)),
    recordExternalPurchase: async (request) =>
      toOutcome(
        await external.record(
          scopeOf(request.scope),
          request.userId,
          request.externalId,
          { pricingId: request.pricingId, productId: request.productId },
          { amount: request.amount, currency: request.currency, endDate: request.endDate, autorenew: request.autorenew },
        ),
      ),
    changeExternalPurchase: async (request) =>
      toOutcome(
        await external.change(
          scopeOf(request.scope),
          request.userId,
          request.externalId,
          { pricingId: request.pricingId, productId: request.productId },
          { endDate: request.endDate, autorenew: request.autorenew },
        ),
      ),
    downgradeExternalPurchase: async ({ scope, userId, externalId }) =>
      toOutcome(await external.downgrade(scopeOf(scope), userId, externalId)),
    refundExternalPurchase: async (request) =>
      toOutcome(
        await external.refund(scopeOf(request.scope), request.userId, request.externalId, {
          amount: request.amount,
          refundId: request.refundId,
          reason: request.reason,
        }),
      ),
  };
}
