import { isCardProviderFailure, type ProviderPayment } from '../card-provider/card-provider.js';
import { ProviderNotConfigured, type ProviderAccess } from '../card-provider/provider-access.js';
import type { ProviderWriteLedger } from '../provider-writes/provider-write.ledger.js';
import type { TransactionRecord } from '../transactions/transaction.schema.js';

/** The idempotency key of a transaction's provider payment: derived from our record (docs/adr/0121). */
export const paymentKey = (transaction: Pick<TransactionRecord, '_id' | 'resource_id' | 'user_id'>) =>
  `masthead:${transaction.resource_id}:${transaction.user_id}:payment:${transaction._id}:v1`;

/**
 * How a failed payment call ended: `declined` (the provider refused it: nothing was taken, the
 * transaction fails), `refused` (a definitive refusal of the request or a missing key: nothing
 * was taken either) or `uncertain` (a timeout or a provider error: the payment may exist; the
 * transaction stays pending and a retry finds it by its key).
 */
export type PaymentFailureKind = 'declined' | 'refused' | 'uncertain';

export function classifyPaymentFailure(error: unknown): { kind: PaymentFailureKind; code: string; message: string } | null {
  if (error instanceof ProviderNotConfigured) return { kind: 'refused', code: 'not_configured', message: 'not configured for this mode' };
  if (!isCardProviderFailure(error)) return null;
  const code = error.providerCode ?? 'provider_error';
  if (error.httpStatus === 402) return { kind: 'declined', code, message: error.message.replace(/^[^:]*: /, '') };
  if (
    error.httpStatus !== null &&
    error.httpStatus >= 400 &&
    error.httpStatus < 500 &&
    error.httpStatus !== 409 &&
    error.httpStatus !== 429
  )
    return { kind: 'refused', code, message: error.message };
  return { kind: 'uncertain', code, message: error.message };
}

/**
 * Charges a transaction's saved source at most once (docs/adr/0121, 0142): the provider write
 * goes through the ledger under the transaction's key, so a retried request, a concurrent one
 * and one that follows a crash between the provider's answer and our record all end on the
 * same provider payment. Throws the provider's failure (see classifyPaymentFailure).
 */
export class PaymentRunner {
  constructor(private readonly deps: { providers: ProviderAccess; ledger: ProviderWriteLedger }) {}

  async charge(transaction: TransactionRecord, offSession: boolean): Promise<ProviderPayment> {
    const { customer_id: customer, source_ref: source } = transaction;
    if (!customer || !source) throw new Error(`transaction ${transaction._id} has no payment source`);
    const key = paymentKey(transaction);
    const provider = await this.deps.providers.for(transaction.resource_id, transaction.mode);
    let created: ProviderPayment | null = null;
    const id = await this.deps.ledger.once(key, {
      find: async () => (await provider.findPaymentByKey(customer, key))?.id ?? null,
      create: async () => {
        created = await provider.createPayment(
          { customer, source, amount: transaction.amount, currency: transaction.currency, offSession },
          key,
        );
        return created.id;
      },
    });
    return created ?? provider.retrievePayment(id);
  }

  /** The payment's current state on the provider (a resumed checkout, a webhook). */
  async refresh(transaction: TransactionRecord): Promise<ProviderPayment> {
    if (!transaction.payment_id) throw new Error(`transaction ${transaction._id} has no provider payment`);
    const provider = await this.deps.providers.for(transaction.resource_id, transaction.mode);
    return provider.retrievePayment(transaction.payment_id);
  }
}
