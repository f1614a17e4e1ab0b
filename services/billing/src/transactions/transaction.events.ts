import type { EventPublisher } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { TransactionRecord } from './transaction.schema.js';

/**
 * `transaction_succeeded` / `transaction_failed` (docs/adr/0141), published by the writer whose
 * `settle` moved the transaction; a failed publish is logged (the outbox already keeps what it
 * accepted), never the caller's failure.
 */
export async function publishSettled(
  events: EventPublisher,
  logger: Logger,
  name: 'transaction_succeeded' | 'transaction_failed',
  transaction: TransactionRecord,
): Promise<void> {
  try {
    await events.publish({
      name,
      resourceId: transaction.resource_id,
      payload: {
        transaction_id: transaction._id,
        user_id: transaction.user_id,
        kind: transaction.kind,
        amount: transaction.amount,
        currency: transaction.currency,
        status: transaction.status,
        error: transaction.error,
      },
    });
  } catch (error) {
    logger.warn({ err: error, transaction: transaction._id }, `${name} not published`);
  }
}
