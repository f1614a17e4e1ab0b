import { isServiceError } from '@masthead/core/errors';
import { accountRequestPaymentError } from './account-request-payment.errors.js';
import type { ServiceClient } from '@masthead/core/grpc';
import type { Logger } from '@masthead/core/logging';
import type { AccountRequestServiceService } from '@masthead/proto/accounts/account_requests';
import { providerFailureAs } from '../customers/customer.service.js';
import type { ProviderAccess } from '../card-provider/provider-access.js';
import { DEPLOYMENT_RESOURCE_ID } from '../connections/connection.service.js';
import type { ProviderWriteLedger } from '../provider-writes/provider-write.ledger.js';

/** Document 2, J: 19900 per website, in USD, for every plan label. */
const PRICE_PER_WEBSITE = 19900;
const CURRENCY = 'usd';

const customerKey = (id: number) => `masthead:deployment:account-request:${id}:customer:v1`;
const chargeKey = (id: number) => `masthead:deployment:account-request:${id}:charge:v1`;

interface Deps {
  accountRequests: ServiceClient<typeof AccountRequestServiceService>;
  providers: ProviderAccess;
  ledger: ProviderWriteLedger;
  logger: Logger;
}

/**
 * POST /account-requests-payment with the deployment's own key (resource 0, live: the resource's
 * mode does not apply). Unlike the original (no guard, a retry charges again), a record is
 * charged at most once (docs/adr/0123): the customer and the charge are ledger writes keyed by
 * the record, and a record already charged answers 200 without a provider call.
 */
export class AccountRequestPaymentService {
  constructor(private readonly deps: Deps) {}

  async pay(accountId: number, token: string): Promise<{ chargedNow: boolean }> {
    const { accountRequests, providers, ledger, logger } = this.deps;
    const record = await accountRequests.getAccountRequest({ id: accountId }, { idempotent: true });
    if (record.cardproviderChargeId) return { chargedNow: false };
    try {
      await accountRequests.setAccountRequestToken({ id: accountId, cardproviderToken: token });
    } catch (error) {
      // Document 2, J: a failed token save is logged, not stopped.
      logger.warn({ err: error, accountId }, 'account request token not stored');
    }
    try {
      const provider = await providers.for(DEPLOYMENT_RESOURCE_ID, 'live');
      const customerId = await ledger.once(customerKey(accountId), {
        find: async () => (await provider.findCustomerByKey(record.email, customerKey(accountId)))?.id ?? null,
        create: async () => {
          // A token used already holds someone's card (tokens are single-use): never charge it (docs/adr/0230).
          if ((await provider.retrieveToken(token)).used) throw accountRequestPaymentError('the token was used already');
          const name = `${record.firstName} ${record.lastName}`.trim();
          return (await provider.createCustomer({ email: record.email, name, source: token }, customerKey(accountId))).id;
        },
      });
      const alreadyCharged = await ledger.recorded(chargeKey(accountId));
      const chargeId = await ledger.once(chargeKey(accountId), {
        find: async () => (await provider.findChargeByKey(customerId, chargeKey(accountId)))?.id ?? null,
        create: async () =>
          (
            await provider.createCharge(
              { customer: customerId, amount: PRICE_PER_WEBSITE * record.numberOfWebsites, currency: CURRENCY },
              chargeKey(accountId),
            )
          ).id,
      });
      await accountRequests.recordAccountRequestPayment({ id: accountId, customerId, chargeId });
      return { chargedNow: alreadyCharged === null };
    } catch (error) {
      if (isServiceError(error)) throw error;
      providerFailureAs(error, accountRequestPaymentError);
    }
  }
}
