import type { PurchaseRecord } from '../transactions/transaction.schema.js';

/** A refund of the charge as the provider lists it now, with the key billing made it under (none for one made by hand). */
export interface ChargeRefund {
  amount: number;
  key: string | null;
}

/** More lines than a checkout holds (20): no search over their combinations. */
const MAX_LINES_SEARCHED = 20;

/**
 * The purchase lines a charge's refunds cover whole (docs/adr/0234): every line once the whole
 * amount went back; else each line billing refunded under its own key (`keyOf`), and the lines
 * whose amounts make up exactly what was refunded by hand — only when one set of lines does, so
 * a partial refund that matches no set, or several, takes nothing back (an operator decides).
 */
export function refundedLines(
  transaction: { amount: number; purchases: Array<Pick<PurchaseRecord, 'amount' | 'unfulfilled'>> },
  refunds: ChargeRefund[],
  keyOf: (line: number) => string,
): number[] {
  const lines = transaction.purchases.map((_, line) => line);
  const refunded = refunds.reduce((sum, refund) => sum + refund.amount, 0);
  if (transaction.amount > 0 && refunded >= transaction.amount) return lines;
  const keyed = new Set(lines.filter((line) => refunds.some((refund) => refund.key === keyOf(line))));
  const byHand = refunds
    .filter((refund) => !lines.some((line) => refund.key === keyOf(line)))
    .reduce((sum, refund) => sum + refund.amount, 0);
  const candidates = lines.filter(
    (line) => !keyed.has(line) && !transaction.purchases[line]!.unfulfilled && transaction.purchases[line]!.amount > 0,
  );
  const matched = byHand > 0 ? onlySubsetSumming(candidates, (line) => transaction.purchases[line]!.amount, byHand) : [];
  return lines.filter((line) => keyed.has(line) || matched.includes(line));
}

/** The one subset of `items` whose amounts sum to `total`; [] when none or several do. */
function onlySubsetSumming(items: number[], amountOf: (item: number) => number, total: number): number[] {
  if (items.length > MAX_LINES_SEARCHED) return [];
  let found: number[] | null = null;
  for (let mask = 1; mask < 2 ** items.length; mask++) {
    const subset = items.filter((_, index) => (mask >> index) & 1);
    if (subset.reduce((sum, item) => sum + amountOf(item), 0) !== total) continue;
    if (found) return [];
    found = subset;
  }
  return found ?? [];
}
