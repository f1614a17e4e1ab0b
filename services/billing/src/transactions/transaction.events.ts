import type { DomainEvents, EventPublisher } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { TransactionRecord } from './transaction.schema.js';

type TransactionEvent = 'transaction_succeeded' | 'transaction_failed' | 'transaction_refunded' | 'transaction_disputed';

/** Publishes a transaction's event; a failed publish is logged (the outbox already keeps what it accepted), never the caller's failure. */
async function publishOf<N extends TransactionEvent>(
  events: EventPublisher,
  logger: Logger,
  name: N,
  transaction: TransactionRecord,
  payload: DomainEvents[N],
): Promise<void> {
  try {
    await events.publish({ name, resourceId: transaction.resource_id, payload });
  } catch (error) {
    logger.warn({ err: error, transaction: transaction._id }, `${name} not published`);
  }
}

/**
 * `transaction_succeeded` / `transaction_failed` (docs/adr/0141), published by the writer whose
 * `settle` moved the transaction.
 */
export const publishSettled = (
  events: EventPublisher,
  logger: Logger,
  name: 'transaction_succeeded' | 'transaction_failed',
  transaction: TransactionRecord,
): Promise<void> =>
  publishOf(events, logger, name, transaction, {
    transaction_id: transaction._id,
    user_id: transaction.user_id,
    kind: transaction.kind,
    amount: transaction.amount,
    currency: transaction.currency,
    status: transaction.status,
    error: transaction.error,
  });

/** `transaction_refunded` / `transaction_disputed` (docs/adr/0147, 0201): what changed after the payment settled. */
export const publishChanged = (
  events: EventPublisher,
  logger: Logger,
  name: 'transaction_refunded' | 'transaction_disputed',
  transaction: TransactionRecord,
): Promise<void> =>
  publishOf(events, logger, name, transaction, {
    transaction_id: transaction._id,
    user_id: transaction.user_id,
    status: transaction.status,
    amount_refunded: transaction.amount_refunded,
    dispute_status: transaction.dispute?.status ?? null,
  });
