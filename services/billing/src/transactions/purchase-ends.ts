import type { ServiceClient } from '@masthead/core/grpc';
import type { MembershipsServiceService } from '@masthead/proto/catalog/memberships';
import type { TransactionRecord } from './transaction.schema.js';

/** Ends the memberships the transaction's purchases granted (catalog; idempotent): a full refund or a lost dispute. */
export async function endPurchased(
  memberships: ServiceClient<typeof MembershipsServiceService>,
  transaction: TransactionRecord,
  reason: 'refunded' | 'disputed',
): Promise<void> {
  for (const purchase of transaction.purchases) {
    if (purchase.item_type !== 'subscription' || !purchase.fulfilled_id) continue;
    await memberships.endMembership({
      resourceId: transaction.resource_id,
      userId: transaction.user_id,
      membershipId: purchase.fulfilled_id,
      reason,
    });
  }
}
