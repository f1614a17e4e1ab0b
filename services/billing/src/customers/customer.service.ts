import type { ProviderMode } from '../connections/connection.schema.js';
import { isCardProviderFailure } from '../card-provider/card-provider.js';
import { ProviderNotConfigured, type ProviderAccess } from '../card-provider/provider-access.js';
import type { ProviderWriteLedger } from '../provider-writes/provider-write.ledger.js';
import type { Member } from '../support/member-scope.js';
import { CARDPROVIDER } from '../support/resource-settings.js';
import { customerProviderError } from './customer.errors.js';
import type { PaymentCustomerRepository } from './payment-customer.repository.js';
import type { PaymentCustomerRecord } from './payment-customer.schema.js';

/**
 * The idempotency key of a member's modern customer in a resource's provider account and mode:
 * derived from our own record's identity, so every retry of its creation uses the same key
 * (docs/adr/0121). `v1` versions the derivation.
 */
export const modernCustomerKey = (resourceId: number, userId: number, mode: ProviderMode) =>
  `masthead:${resourceId}:${userId}:customer:${mode}:v1`;

/** Maps a provider or configuration failure to the operation's own error; rethrows the rest. */
export function providerFailureAs(error: unknown, toError: (detail: string) => Error): never {
  if (error instanceof ProviderNotConfigured) throw toError('not configured for this mode');
  if (isCardProviderFailure(error)) throw toError(error.providerCode ?? 'provider error');
  throw error;
}

interface Deps {
  customers: PaymentCustomerRepository;
  providers: ProviderAccess;
  ledger: ProviderWriteLedger;
}

/** The member's modern card-provider customer (document 1 D, "read or create"). */
export class CustomerService {
  constructor(private readonly deps: Deps) {}

  /**
   * The member's modern customer in the resource's mode, created on the provider at most once:
   * the ledger elects one writer per key and recovers a write whose reply was lost; the unique
   * customer_key keeps one local record. Throws 409 cardprovider_customer_error.
   */
  async getOrCreate(member: Member): Promise<PaymentCustomerRecord> {
    const { customers, providers, ledger } = this.deps;
    const { mode } = member.settings;
    const key = modernCustomerKey(member.resourceId, member.userId, mode);
    const existing = await customers.findByKey(key);
    if (existing) return existing;
    try {
      const provider = await providers.for(member.resourceId, mode);
      const customerId = await ledger.once(key, {
        find: async () => (await provider.findCustomerByKey(member.email, key))?.id ?? null,
        create: async () => (await provider.createCustomer({ email: member.email, name: member.name }, key)).id,
      });
      return await customers.insertOnce({
        user_id: member.userId,
        resource_id: member.resourceId,
        resource_ids: [member.resourceId],
        pay_system: CARDPROVIDER,
        customer_id: customerId,
        mode,
        kind: 'modern',
        customer_key: key,
      });
    } catch (error) {
      providerFailureAs(error, customerProviderError);
    }
  }

  /** Community's seat checks: any customer of the member visible in the resource. */
  has(resourceId: number, userId: number): Promise<boolean> {
    return this.deps.customers.existsVisible(resourceId, userId);
  }
}
