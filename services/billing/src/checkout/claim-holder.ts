import type { TransactionRepository } from '../transactions/transaction.repository.js';
import type { TransactionRecord } from '../transactions/transaction.schema.js';

/**
 * Where the checkout behind a claim (a Pricing hold, a promo use) stands, read from the transaction
 * under the claim's key: still running, abandoned (no transaction after the lease: it died before
 * recording, or is stuck), failed (its payment failed: over for good), or recorded (ADR 0142, 0220).
 */
export type ClaimHolder =
  { state: 'running' } | { state: 'abandoned' } | { state: 'failed' } | { state: 'recorded'; transaction: TransactionRecord };

export function claimHolders(
  transactions: Pick<TransactionRepository, 'findByKey'>,
  now: () => Date,
  leaseMs: number,
): (claimKey: string, claimedAt: Date) => Promise<ClaimHolder> {
  return async (claimKey, claimedAt) => {
    const transaction = await transactions.findByKey(claimKey);
    if (!transaction) return { state: now().getTime() - claimedAt.getTime() > leaseMs ? 'abandoned' : 'running' };
    return transaction.status === 'failed' ? { state: 'failed' } : { state: 'recorded', transaction };
  };
}
