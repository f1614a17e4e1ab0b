import { parseOrThrow } from '@masthead/core/errors';
import type { AsyncImplementation } from '@masthead/core/grpc';
import type { OwedRefund, OwedRefundServiceService } from '@masthead/proto/billing/refunds';
import { writeOffCommand } from '../refunds/refund.command.js';
import type { RefundService } from '../refunds/refund.service.js';
import type { DueRefundRecord } from '../refunds/refund.schema.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

const toOwedRefund = (due: DueRefundRecord): OwedRefund => ({
  key: due._id,
  transactionId: due.transaction_id,
  line: due.line,
  amount: due.amount,
  createdAt: due.created_at.toISOString(),
  attempts: due.attempts ?? 0,
  nextAttemptAt: due.next_attempt_at?.toISOString() ?? '',
  lastError: due.last_error ?? '',
});

/** Operators' view of owed refunds (docs/adr/0221), and their write-offs (docs/adr/0223). */
export function owedRefundHandlers(refunds: RefundService): AsyncImplementation<typeof OwedRefundServiceService> {
  return {
    listOwedRefunds: async ({ limit }) => {
      const count = limit > 0 ? Math.min(limit, MAX_LIMIT) : DEFAULT_LIMIT;
      return { items: (await refunds.listOwed(count)).map(toOwedRefund) };
    },
    retryOwedRefund: async ({ key }) => {
      const outcome = await refunds.retryOwed(key);
      return outcome.made ? { made: true } : { made: false, refund: toOwedRefund(outcome.due) };
    },
    writeOffOwedRefund: async (request) => {
      const writeOff = await refunds.writeOff(parseOrThrow(writeOffCommand, request));
      return {
        key: writeOff._id,
        transactionId: writeOff.transaction_id,
        line: writeOff.line,
        amount: writeOff.amount,
        reason: writeOff.reason,
        writtenOffAt: writeOff.written_off_at.toISOString(),
        providerChecked: writeOff.provider_checked,
      };
    },
  };
}
