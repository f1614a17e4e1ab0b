import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery, toPaginator } from '@masthead/core/pagination';
import { LegacyVariant, type LegacySourceServiceService } from '@masthead/proto/billing/legacy_sources';
import type { AttachAttemptGate } from '../attach-attempts/attach-attempt.gate.js';
import type { LegacySourceService } from '../sources/legacy.service.js';
import { memberOf } from '../support/member-scope.js';
import { toCardItem, toLegacyCustomer, toRawMethod } from './billing.wire.js';

export function legacySourceHandlers(
  legacy: LegacySourceService,
  attempts: AttachAttemptGate,
): AsyncImplementation<typeof LegacySourceServiceService> {
  return {
    recordCardAttachAttempt: async (scope) => {
      const { attempts: count, limit, windowSeconds } = await attempts.record(memberOf(scope), scope.resourceSettings);
      return { attempts: count, limit, windowSeconds };
    },
    createLegacyCustomer: async ({ scope, token, variant }) => {
      const { customer, cards } = await legacy.createFromToken(
        memberOf(scope),
        token,
        variant === LegacyVariant.LEGACY_VARIANT_TOKEN ? 'token' : 'customer',
      );
      return toLegacyCustomer(customer, cards);
    },
    listCards: async ({ scope, query }) => {
      const page = fromPageQuery(query);
      const { items, total } = await legacy.listCards(memberOf(scope), page);
      return { items: items.map(toCardItem), paginator: toPaginator(page, total) };
    },
    listLegacyCustomers: async (scope) => ({
      items: (await legacy.listCustomers(memberOf(scope))).map(({ customer, cards }) => toLegacyCustomer(customer, cards)),
    }),
    attachLegacyCustomer: async ({ scope, id }) => {
      const { customer, cards } = await legacy.attach(memberOf(scope), id);
      return toLegacyCustomer(customer, cards);
    },
    deleteLegacyCustomer: async ({ scope, id }) => {
      await legacy.deleteCustomer(memberOf(scope), id);
      return {};
    },
    importLegacyCustomer: async ({ scope, customerId }) => {
      const { customer, cards, created } = await legacy.importCustomer(memberOf(scope), customerId.trim() || null);
      return { customer: toLegacyCustomer(customer, cards), created };
    },
    addCard: async ({ scope, token, customerId }) => {
      const member = memberOf(scope);
      await attempts.record(member, scope?.resourceSettings);
      return toCardItem({ ...(await legacy.addCard(member, token, customerId || null)), isDefault: false });
    },
    confirmPaymentMethod: async ({ scope, paymentMethodId, customerId, paymentCustomerId, cardId, setupIntentId }) => ({
      json: JSON.stringify(
        toRawMethod(await legacy.confirm(memberOf(scope), { paymentMethodId, customerId, paymentCustomerId, cardId, setupIntentId })),
      ),
    }),
  };
}
