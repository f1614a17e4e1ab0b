import type { AsyncImplementation } from '@masthead/core/grpc';
import type { CheckoutItem as CheckoutItemMessage, CheckoutServiceService } from '@masthead/proto/billing/checkout';
import type { CheckoutItem, CheckoutService } from '../checkout/checkout.service.js';
import { memberOf } from '../support/member-scope.js';
import { toQuote, toTransaction } from './transactions.wire.js';

const itemsOf = (items: CheckoutItemMessage[]): CheckoutItem[] =>
  items.map((item) => ({
    itemType: item.itemType,
    itemKey: item.itemKey,
    itemResource: item.itemResource,
    promo: item.promo,
    userCardId: item.userCardId,
    paymentMethodId: item.paymentMethodId,
  }));

export function checkoutHandlers(checkout: CheckoutService): AsyncImplementation<typeof CheckoutServiceService> {
  return {
    calculatePrice: async ({ scope, items }) => toQuote(await checkout.quote(memberOf(scope), itemsOf(items))),
    validatePromo: async ({ scope, items }) => toQuote(await checkout.validatePromo(memberOf(scope), itemsOf(items))),
    pay: async ({ scope, items, idempotencyKey, requestId }) => {
      const outcome = await checkout.pay(memberOf(scope), itemsOf(items), idempotencyKey, requestId);
      return { transaction: toTransaction(outcome.transaction), clientSecret: outcome.clientSecret ?? '' };
    },
  };
}
