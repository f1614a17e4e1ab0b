import type { AsyncImplementation } from '@masthead/core/grpc';
import type { AccountRequestPaymentServiceService } from '@masthead/proto/billing/account_request_payments';
import type { AccountRequestPaymentService } from '../account-requests/account-request-payment.service.js';

export function accountRequestPaymentHandlers(
  payments: AccountRequestPaymentService,
): AsyncImplementation<typeof AccountRequestPaymentServiceService> {
  return {
    payAccountRequest: async ({ accountId, cardproviderToken }) => ({
      accountId,
      chargedNow: (await payments.pay(accountId, cardproviderToken)).chargedNow,
    }),
  };
}
