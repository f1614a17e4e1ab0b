import type { AsyncImplementation } from '@masthead/core/grpc';
import { incorrectDataNotAcceptable } from '@masthead/core/errors';
import type { AccountRequest, AccountRequestServiceService } from '@masthead/proto/accounts/account_requests';
import type { AccountRequestRecord } from '../account-requests/account-request.schema.js';
import type { AccountRequestService } from '../account-requests/account-request.service.js';

/** Record → wire; the stored token never leaves accounts (only whether there is one). */
const toAccountRequest = (record: AccountRequestRecord): AccountRequest => ({
  id: record._id,
  resourceId: record.resource_id,
  email: record.email,
  plan: record.plan,
  numberOfWebsites: record.number_of_websites,
  firstName: record.first_name,
  lastName: record.last_name,
  companyName: record.company_name,
  jobTitle: record.job_title,
  phoneNumber: record.phone_number ?? undefined,
  termsAndConditions: record.terms_and_conditions,
  hasCardproviderToken: !!record.cardprovider_token,
  cardproviderCustomerId: record.cardprovider_customer_id ?? undefined,
  cardproviderChargeId: record.cardprovider_charge_id ?? undefined,
  createdAt: record.created_at.toISOString(),
});

function parseBody(json: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(json);
  } catch {
    body = null;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw incorrectDataNotAcceptable();
  return body as Record<string, unknown>;
}

export function accountRequestHandlers(requests: AccountRequestService): AsyncImplementation<typeof AccountRequestServiceService> {
  return {
    createAccountRequest: async ({ bodyJson, remoteAddress }) =>
      toAccountRequest(await requests.create(parseBody(bodyJson), remoteAddress)),
    getAccountRequest: async ({ id }) => toAccountRequest(await requests.get(id)),
    setAccountRequestToken: async ({ id, cardproviderToken }) => toAccountRequest(await requests.setToken(id, cardproviderToken)),
    recordAccountRequestPayment: async ({ id, customerId, chargeId }) =>
      toAccountRequest(await requests.recordPayment(id, customerId, chargeId)),
  };
}
