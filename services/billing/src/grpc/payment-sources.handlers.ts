import { paymentSourceNotFound } from '@masthead/core/errors';
import type { AsyncImplementation } from '@masthead/core/grpc';
import type { PaymentSourceServiceService } from '@masthead/proto/billing/payment_sources';
import type { CustomerService } from '../customers/customer.service.js';
import type { SourceService } from '../sources/source.service.js';
import type { SourceType } from '../sources/source.repository.js';
import { memberOf } from '../support/member-scope.js';
import { toPaymentCustomer, toPaymentSource, toSavedMethod } from './billing.wire.js';

const sourceType = (value: string): SourceType => {
  if (value !== 'payment-method' && value !== 'user-card') throw paymentSourceNotFound();
  return value;
};

export function paymentSourceHandlers(
  customers: CustomerService,
  sources: SourceService,
): AsyncImplementation<typeof PaymentSourceServiceService> {
  return {
    getOrCreateCustomer: async (scope) => toPaymentCustomer(await customers.getOrCreate(memberOf(scope))),
    hasPaymentCustomer: async ({ resourceId, userId }) => ({ hasCustomer: await customers.has(resourceId, userId) }),
    createSetupIntent: async ({ scope, cardCustomerId, requestId }) => ({
      json: JSON.stringify(await sources.createSetupIntent(memberOf(scope), cardCustomerId, requestId)),
    }),
    saveIntent: async ({ scope, paymentMethodId }) => toSavedMethod(await sources.saveIntent(memberOf(scope), paymentMethodId)),
    listPaymentSources: async ({ scope, paySystem }) => ({ items: (await sources.list(memberOf(scope), paySystem)).map(toPaymentSource) }),
    selectDefaultSource: async ({ scope, sourceType: type, id }) =>
      toPaymentSource(await sources.selectDefault(memberOf(scope), sourceType(type), id)),
    removeSource: async ({ scope, sourceType: type, id }) => {
      await sources.remove(memberOf(scope), sourceType(type), id);
      return {};
    },
  };
}
