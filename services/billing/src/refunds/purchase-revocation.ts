import type { Logger } from '@masthead/core/logging';
import type { FulfilmentRegistry, RevocationReason } from '../checkout/fulfilment.js';
import type { TransactionRepository } from '../transactions/transaction.repository.js';
import type { TransactionRecord } from '../transactions/transaction.schema.js';
import { type ChargeRefund, refundedLines } from './refunded-lines.js';

interface Deps {
  transactions: Pick<TransactionRepository, 'findById' | 'markRevoking' | 'markRevoked'>;
  fulfilments: FulfilmentRegistry;
  /** The key billing refunds a line under (refund.service.ts's `refundKey`). */
  refundKeyOf: (transaction: TransactionRecord, line: number) => string;
  logger: Logger;
}

/**
 * Takes back what paid lines granted once their money went back (docs/adr/0234): a refund covering
 * whole lines, or a lost dispute (the whole payment). Each line's item type does it through its
 * fulfilment — memberships end, passes end, gifts and their recipients' memberships end — with
 * the events those endings always publish. The line is marked before (`revoked`: no fulfilment
 * grants it afterwards) and after (`revoked_at`); every step is idempotent, so a retried refund
 * or a redelivered event takes nothing back twice, and a failure is finished by the retry.
 */
export class PurchaseRevocation {
  constructor(private readonly deps: Deps) {}

  /** A refund mirrored onto the transaction: the lines it covers whole. */
  async refunded(transaction: TransactionRecord, refunds: ChargeRefund[]): Promise<void> {
    const lines = refundedLines(transaction, refunds, (line) => this.deps.refundKeyOf(transaction, line));
    await this.revoke(transaction, lines, 'refunded');
  }

  /** A dispute lost: the provider took the whole payment back, so every line. */
  async disputeLost(transaction: TransactionRecord): Promise<void> {
    await this.revoke(
      transaction,
      transaction.purchases.map((_, line) => line),
      'disputed',
    );
  }

  /**
   * Checkout granted a line: one a revocation marked meanwhile (and so found without a grant) is
   * taken back now. Either this read sees the mark, or the revocation saw the grant.
   */
  async afterGrant(transactionId: number, line: number): Promise<void> {
    const transaction = await this.deps.transactions.findById(transactionId);
    const purchase = transaction?.purchases[line];
    if (transaction && purchase?.revoked) await this.revoke(transaction, [line], purchase.revoked as RevocationReason);
  }

  private async revoke(transaction: TransactionRecord, lines: number[], reason: RevocationReason): Promise<void> {
    for (const line of lines) {
      const purchase = transaction.purchases[line];
      // A line never granted (refunded by checkout itself) or taken back already has nothing left.
      if (!purchase || purchase.unfulfilled || purchase.revoked_at) continue;
      const fulfilment = this.deps.fulfilments.get(purchase.item_type);
      if (!fulfilment) continue;
      const marked = (await this.deps.transactions.markRevoking(transaction._id, line, reason))?.purchases[line] ?? purchase;
      // Read after the mark: a fulfilment that granted meanwhile has recorded what it granted.
      const target = {
        resourceId: transaction.resource_id,
        userId: transaction.user_id,
        transactionId: transaction._id,
        claimKey: transaction.unique_key,
        line,
      };
      await fulfilment.revoke(target, marked.fulfilled_id, (marked.revoked ?? reason) as RevocationReason);
      await this.deps.transactions.markRevoked(transaction._id, line);
      this.deps.logger.info({ transaction: transaction._id, line, item_type: purchase.item_type, reason }, 'purchase line revoked');
    }
  }
}
