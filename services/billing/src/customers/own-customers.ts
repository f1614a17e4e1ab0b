import type { CardProvider, ProviderCustomer } from '../card-provider/card-provider.js';
import type { ProviderAccess } from '../card-provider/provider-access.js';
import type { Member } from '../support/member-scope.js';
import { CARDPROVIDER } from '../support/resource-settings.js';
import type { PaymentCustomerRepository } from './payment-customer.repository.js';
import type { PaymentCustomerRecord } from './payment-customer.schema.js';

/** The person a provider customer must belong to: a member, or the payer of a renewal. */
export interface Holder {
  userId: number;
  email: string;
}

/** The member a key of billing's names (`masthead:<resource>:<user>:…`, docs/adr/0121), or null. */
export function memberOfKey(key: string | null): number | null {
  const match = key === null ? null : /^masthead:\d+:(\d+):/.exec(key);
  return match ? Number(match[1]) : null;
}

/**
 * Whether the provider customer is the holder's (docs/adr/0230): billing made it for them (the
 * key it tagged the customer with names them), or, made outside billing (no key of ours), it
 * carries their email, the rule import already followed (docs/adr/0124).
 */
export function isHoldersCustomer(customer: ProviderCustomer, holder: Holder): boolean {
  if (customer.key !== null) return memberOfKey(customer.key) === holder.userId;
  return customer.email !== null && customer.email.toLowerCase() === holder.email.toLowerCase();
}

/** Billing created the record's customer for the record's member itself: its key says so, no provider call needed. */
const madeForItsMember = (record: PaymentCustomerRecord): boolean => memberOfKey(record.customer_key) === record.user_id;

/**
 * The members' own card-provider customers (docs/adr/0230). A provider customer a member names,
 * or one a provider object they name is attached to, is theirs only when they hold a record of
 * it visible in the resource, in the resource's mode, and the customer is theirs: made by
 * billing for them, or proven at the provider (isHoldersCustomer). Records billing made for a
 * member need no provider call; the others (customers adopted by save-intents or imported) are
 * checked at the provider each time they are used, so that a record written before this check
 * existed is never trusted. Provider failures throw CardProviderFailure.
 */
export class OwnCustomers {
  constructor(private readonly deps: { customers: PaymentCustomerRepository; providers: ProviderAccess }) {}

  /** The member's record of the provider customer, when it is theirs in the resource and its mode; else null. */
  async find(member: Member, customerId: string): Promise<PaymentCustomerRecord | null> {
    const record = await this.deps.customers.findVisibleByProviderId(member.resourceId, member.userId, CARDPROVIDER, customerId);
    if (!record || record.mode !== member.settings.mode) return null;
    return (await this.holds(record, member)) ? record : null;
  }

  /**
   * `find`, else a new record of the customer for the member when the provider says it is theirs
   * (a customer made outside billing with their email, or one billing made for them whose record
   * this resource does not see); null when it is not theirs. `provider` acts for the resource.
   */
  async adopt(member: Member, provider: CardProvider, customerId: string): Promise<PaymentCustomerRecord | null> {
    const found = await this.find(member, customerId);
    if (found) return found;
    const known = await this.deps.customers.findVisibleByProviderId(member.resourceId, member.userId, CARDPROVIDER, customerId);
    if (known) return null; // recorded here, but in another mode or not theirs
    const customer = await provider.retrieveCustomer(customerId);
    if (!customer || !isHoldersCustomer(customer, member)) return null;
    return this.deps.customers.insertOnce({
      user_id: member.userId,
      resource_id: member.resourceId,
      resource_ids: [member.resourceId],
      pay_system: CARDPROVIDER,
      customer_id: customer.id,
      mode: member.settings.mode,
      kind: 'modern',
      customer_key: `${member.userId}:${CARDPROVIDER}:${customer.id}`,
    });
  }

  /** Whether a customer record of the holder's is theirs: billing made it for them, else the provider's customer says so. */
  async holds(record: PaymentCustomerRecord, holder: Holder): Promise<boolean> {
    if (record.user_id !== holder.userId) return false;
    if (madeForItsMember(record)) return true;
    const provider = await this.deps.providers.for(record.resource_id, record.mode);
    const customer = await provider.retrieveCustomer(record.customer_id);
    return customer !== null && isHoldersCustomer(customer, holder);
  }
}
