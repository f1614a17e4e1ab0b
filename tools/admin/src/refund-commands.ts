import type { OwedRefund } from '@masthead/proto/billing/refunds';
import { integer, optional, text, type Values } from './args.js';
import type { AdminClients } from './clients.js';

/** Operator commands of the refunds billing owes (docs/adr/0201, 0221, 0223). */
export const REFUND_USAGE = `
  list-owed-refunds [--limit N]         refunds billing owes and has not made yet, oldest first, with
                                        their failed attempts, last error and next try (default 100)
  retry-owed-refund --key K             makes one now, whatever its backoff; prints whether it was made
  write-off-owed-refund --key K --reason "..."
                                        the member was paid back outside the card provider (bank
                                        transfer, cash, a credit): billing never makes that refund;
                                        the reason (1 to 500 characters) is kept for audit. Refused
                                        when the refund was made or is being made
`;

/** `--reason`, trimmed: a blank one is refused before billing is called; billing judges the rest. */
export const writeOffReason = (values: Values): string => text({ reason: optional(values, 'reason')?.trim() }, 'reason');

/** An owed refund as operators read it. */
const showOwedRefund = (refund: OwedRefund) => ({
  key: refund.key,
  transaction_id: refund.transactionId,
  line: refund.line,
  amount: refund.amount,
  created_at: refund.createdAt,
  attempts: refund.attempts,
  next_attempt_at: refund.nextAttemptAt || null,
  last_error: refund.lastError || null,
});

export const REFUND_COMMANDS: Record<string, (clients: AdminClients, values: Values) => Promise<unknown>> = {
  'list-owed-refunds': async (clients, values) =>
    (
      await clients.owedRefunds.listOwedRefunds({ limit: optional(values, 'limit') === undefined ? 0 : integer(values, 'limit') })
    ).items.map(showOwedRefund),
  'retry-owed-refund': async (clients, values) => {
    const outcome = await clients.owedRefunds.retryOwedRefund({ key: text(values, 'key') });
    return { made: outcome.made, refund: outcome.refund ? showOwedRefund(outcome.refund) : null };
  },
  'write-off-owed-refund': async (clients, values) => {
    const writeOff = await clients.owedRefunds.writeOffOwedRefund({ key: text(values, 'key'), reason: writeOffReason(values) });
    return {
      key: writeOff.key,
      transaction_id: writeOff.transactionId,
      line: writeOff.line,
      amount: writeOff.amount,
      reason: writeOff.reason,
      written_off_at: writeOff.writtenOffAt,
      provider_checked: writeOff.providerChecked,
    };
  },
};

export const REFUND_STRING_OPTIONS = ['key', 'reason'];
