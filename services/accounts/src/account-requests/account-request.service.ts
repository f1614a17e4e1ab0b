import type { EventPublisher } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import { parseAccountRequest } from './account-request.command.js';
import { accountRequestNotExists } from '@masthead/core/errors';
import { accountRequestCreateError } from './account-request.errors.js';
import type { AccountRequestRepository } from './account-request.repository.js';
import type { AccountRequestRecord } from './account-request.schema.js';

interface Deps {
  requests: AccountRequestRepository;
  events: EventPublisher;
  logger: Logger;
  /** ACCOUNT_REQUEST_RESOURCE_ID. */
  resourceId: number;
}

/** Applications for an account (document 2, J); billing charges them. */
export class AccountRequestService {
  constructor(private readonly deps: Deps) {}

  /**
   * Validates and saves a record, then attempts the `account_request` event (a failed publish is
   * logged: queue failures are swallowed here, document 2 Events). No duplicate guard.
   */
  async create(body: Record<string, unknown>, remoteAddress: string): Promise<AccountRequestRecord> {
    const fields = parseAccountRequest(body);
    let record: AccountRequestRecord;
    try {
      record = await this.deps.requests.insert({ ...fields, resource_id: this.deps.resourceId, remote_address: remoteAddress });
    } catch (error) {
      this.deps.logger.error({ err: error }, 'account request not saved');
      throw accountRequestCreateError();
    }
    try {
      await this.deps.events.publish({
        name: 'account_request',
        resourceId: this.deps.resourceId,
        payload: { account_request_id: record._id, email: record.email, plan: record.plan, resource_id: this.deps.resourceId },
      });
    } catch (error) {
      this.deps.logger.warn({ err: error, accountRequestId: record._id }, 'account_request event not published');
    }
    return record;
  }

  async get(id: number): Promise<AccountRequestRecord> {
    const record = await this.deps.requests.find(id);
    if (!record) throw accountRequestNotExists();
    return record;
  }

  async setToken(id: number, token: string): Promise<AccountRequestRecord> {
    return (await this.deps.requests.update(id, { cardprovider_token: token })) ?? Promise.reject(accountRequestNotExists());
  }

  async recordPayment(id: number, customerId: string, chargeId: string): Promise<AccountRequestRecord> {
    const updated = await this.deps.requests.update(id, { cardprovider_customer_id: customerId, cardprovider_charge_id: chargeId });
    if (!updated) throw accountRequestNotExists();
    return updated;
  }
}
