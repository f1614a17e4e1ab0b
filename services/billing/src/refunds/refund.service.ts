import { isErrorOf } from '@masthead/core/errors';
import type { EventPublisher } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { ProviderPayment } from '../card-provider/card-provider.js';
import type { ProviderAccess } from '../card-provider/provider-access.js';
import { classifyPaymentFailure } from '../payments/payment.runner.js';
import { providerWriteCalledOff, providerWriteInProgress } from '../provider-writes/provider-write.errors.js';
import type { ProviderWriteLedger } from '../provider-writes/provider-write.ledger.js';
import { publishChanged } from '../transactions/transaction.events.js';
import type { TransactionRepository } from '../transactions/transaction.repository.js';
import type { TransactionRecord } from '../transactions/transaction.schema.js';
import type { WriteOffCommand } from './refund.command.js';
import type { PurchaseRevocation } from './purchase-revocation.js';
import type { DueRefundRepository } from './refund.repository.js';
import { owedRefundAlreadyMade, owedRefundInProgress, owedRefundNotFound, owedRefundWrittenOff } from './refund.errors.js';
import type { DueRefundRecord } from './refund.schema.js';
import type { RefundWriteOffRepository } from './write-off.repository.js';
import type { RefundWriteOffRecord } from './write-off.schema.js';

/** The idempotency key of the refund of one purchase line: derived from our record (docs/adr/0121, 0201). */
export const refundKey = (transaction: Pick<TransactionRecord, '_id' | 'resource_id' | 'user_id'>, line: number): string =>
  `masthead:${transaction.resource_id}:${transaction.user_id}:refund:${transaction._id}:${line}:v1`;

/** A key `refundKey` derived (the provider-write ledger also holds other writes' keys). */
const isRefundKey = (key: string): boolean => /^masthead:\d+:\d+:refund:\d+:\d+:v1$/.test(key);

/**
 * The provider could not make it now (down, slow, refused), another caller holds its write, or a
 * write-off is being recorded (docs/adr/0223): it stays owed.
 */
const leftOwed = (error: unknown): boolean =>
  classifyPaymentFailure(error) !== null || isErrorOf(error, providerWriteInProgress, owedRefundWrittenOff);

/** The first retry of a failed refund waits this long, each later one twice as long, up to `RETRY_MAX_MS` (ADR 0221). */
const RETRY_BASE_MS = 60_000;
const RETRY_MAX_MS = 6 * 60 * 60_000;

/** When an owed refund that failed `attempts` times is tried again. */
export function nextAttemptAfter(attempts: number, now: Date): Date {
  return new Date(now.getTime() + Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1)));
}

/** What an operator reads about a failed attempt: the provider's answer, or the error. */
function failureText(error: unknown): string {
  const failure = classifyPaymentFailure(error);
  const text = failure ? `${failure.kind} ${failure.code}: ${failure.message}` : error instanceof Error ? error.message : String(error);
  return text.slice(0, 500);
}

/** The payment was refunded in full already (by hand, on the provider): no refund to make. */
class NothingLeftToRefund extends Error {
  constructor() {
    super('the payment has nothing left to refund');
  }
}

/** What became of an owed refund an attempt took: made on the provider, or written off (not made). */
type Made = 'made' | 'written_off';

interface Deps {
  transactions: TransactionRepository;
  dues: DueRefundRepository;
  writeOffs: RefundWriteOffRepository;
  providers: Pick<ProviderAccess, 'for'>;
  ledger: ProviderWriteLedger;
  revocation: Pick<PurchaseRevocation, 'refunded'>;
  events: EventPublisher;
  logger: Logger;
  /** Owed refunds one pass takes at most. */
  batch: number;
  now?: () => Date;
}

/**
 * Refunds (docs/adr/0147, 0201): billing's own, of paid lines that can never be granted, made at
 * most once per line through the provider-write ledger and never lost (owed first, made after);
 * and the mirror of a charge's refunds onto its transaction, which both those and the provider's
 * webhooks use.
 */
export class RefundService {
  private running: Promise<number> | null = null;

  constructor(private readonly deps: Deps) {}

  /** Records the line's amount as owed back, before any provider call; a line that cost nothing owes nothing. */
  async owe(transaction: TransactionRecord, line: number): Promise<void> {
    const amount = transaction.purchases[line]?.amount ?? 0;
    if (amount <= 0) return;
    await this.deps.dues.record({
      _id: refundKey(transaction, line),
      transaction_id: transaction._id,
      line,
      amount,
      created_at: new Date(),
    });
  }

  /**
   * Makes what the transaction owes and mirrors it onto the transaction; a refund the provider
   * cannot make now stays owed for the next completion or pass. Answers the transaction after.
   */
  async settleOwed(transaction: TransactionRecord): Promise<TransactionRecord> {
    for (const due of await this.deps.dues.of(transaction._id)) {
      try {
        await this.make(transaction, due);
      } catch (error) {
        if (!leftOwed(error)) throw error;
        await this.leaveOwed(due, error);
      }
    }
    return (await this.deps.transactions.findById(transaction._id)) ?? transaction;
  }

  /** The refunds still owed, oldest first (operators). */
  listOwed(limit: number): Promise<DueRefundRecord[]> {
    return this.deps.dues.list(limit);
  }

  /**
   * An operator's retry of one owed refund, whatever its backoff: made now, or its failure
   * recorded and answered (it stays owed). 404 owed_refund_not_found.
   */
  async retryOwed(key: string): Promise<{ made: true } | { made: false; due: DueRefundRecord }> {
    const due = key ? await this.deps.dues.find(key) : null;
    if (!due) {
      if (key && (await this.deps.writeOffs.find(key))) throw owedRefundWrittenOff();
      throw owedRefundNotFound();
    }
    let outcome: Made;
    try {
      outcome = await this.makeOwed(due);
    } catch (error) {
      await this.leaveOwed(due, error);
      if (isErrorOf(error, owedRefundWrittenOff)) throw error;
      return { made: false, due: (await this.deps.dues.find(key)) ?? due };
    }
    if (outcome === 'written_off') throw owedRefundWrittenOff();
    return { made: true };
  }

  /**
   * An operator's write-off of one owed refund (docs/adr/0223): the member was paid back outside
   * the card provider. It calls off the refund's provider write for good under the refund's key
   * (the ledger's unique claim, which every attempt needs), so either the refund was or is being
   * made (409 owed_refund_already_made / owed_refund_in_progress) or no attempt ever makes it.
   * Then it records the write-off for audit and the refund stops being owed. A repeat answers the
   * recorded write-off. 404 owed_refund_not_found.
   */
  async writeOff({ key, reason }: WriteOffCommand): Promise<RefundWriteOffRecord> {
    const due = await this.deps.dues.find(key);
    if (!due) {
      const recorded = await this.deps.writeOffs.find(key);
      if (recorded) return recorded;
      if (isRefundKey(key) && (await this.deps.ledger.recorded(key))) throw owedRefundAlreadyMade();
      throw owedRefundNotFound();
    }
    let outcome: Awaited<ReturnType<ProviderWriteLedger['callOff']>>;
    try {
      outcome = await this.deps.ledger.callOff(key, () => this.findMade(due));
    } catch (error) {
      if (isErrorOf(error, providerWriteInProgress)) throw owedRefundInProgress();
      throw error;
    }
    if ('objectId' in outcome) throw owedRefundAlreadyMade();
    const writeOff = await this.deps.writeOffs.record({
      _id: key,
      transaction_id: due.transaction_id,
      line: due.line,
      amount: due.amount,
      reason,
      written_off_at: this.now(),
      provider_checked: outcome.checked,
    });
    await this.deps.dues.done(key);
    const { _id, ...logged } = writeOff;
    this.deps.logger.info({ key: _id, ...logged }, 'owed refund written off');
    return writeOff;
  }

  /** Makes the oldest owed refunds (the timer's pass); answers how many. One pass at a time per process. */
  runOwed(): Promise<number> {
    this.running ??= this.pass().finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<number> {
    let made = 0;
    for (const due of await this.deps.dues.dueBy(this.now(), this.deps.batch)) {
      try {
        if ((await this.makeOwed(due)) === 'made') made++;
      } catch (error) {
        await this.leaveOwed(due, error);
      }
    }
    return made;
  }

  private async makeOwed(due: DueRefundRecord): Promise<Made> {
    const transaction = await this.deps.transactions.findById(due.transaction_id);
    if (!transaction) throw new Error(`transaction ${due.transaction_id} of an owed refund is missing`);
    return this.make(transaction, due);
  }

  /** The refund an earlier attempt made on the provider under the due's key, if any. */
  private async findMade(due: DueRefundRecord): Promise<string | null> {
    const transaction = await this.deps.transactions.findById(due.transaction_id);
    if (!transaction?.payment_id) return null;
    const provider = await this.deps.providers.for(transaction.resource_id, transaction.mode);
    return (await provider.findRefundByKey(transaction.payment_id, due._id))?.id ?? null;
  }

  /** A failed attempt: the refund stays owed and waits longer after each failure (ADR 0221). */
  private async leaveOwed(due: DueRefundRecord, error: unknown): Promise<void> {
    const attempts = (due.attempts ?? 0) + 1;
    const next = nextAttemptAfter(attempts, this.now());
    this.deps.logger.warn(
      { err: error, transaction: due.transaction_id, line: due.line, attempts, next_attempt_at: next },
      'refund left owed for a later pass',
    );
    await this.deps.dues.failed(due._id, attempts, next, failureText(error)).catch((failure: unknown) => {
      this.deps.logger.warn({ err: failure, transaction: due.transaction_id }, 'failed refund attempt not recorded');
    });
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /**
   * The refund of one owed line, at most once (its key), then mirrored; only then is it no longer
   * owed. A refund written off is not made and no longer owed; one whose write-off is still being
   * recorded (or whose recording crashed) throws owed_refund_written_off and stays owed.
   */
  private async make(transaction: TransactionRecord, due: DueRefundRecord): Promise<Made> {
    const payment = transaction.payment_id;
    if (!payment) throw new Error(`transaction ${transaction._id} has no provider payment to refund`);
    const provider = await this.deps.providers.for(transaction.resource_id, transaction.mode);
    let retrieved: ProviderPayment | null = null;
    try {
      await this.deps.ledger.once(due._id, {
        find: async () => (await provider.findRefundByKey(payment, due._id))?.id ?? null,
        create: async () => {
          // Never more than the payment has left: an operator may have refunded some or all of it
          // on the provider by hand, which the provider's webhook mirrors (ADR 0221).
          const current = (retrieved = await provider.retrievePayment(payment));
          const left = current.amount - current.amountRefunded;
          if (left <= 0) throw new NothingLeftToRefund();
          return (await provider.createRefund({ payment, amount: Math.min(due.amount, left) }, due._id)).id;
        },
      });
    } catch (error) {
      if (isErrorOf(error, providerWriteCalledOff)) {
        if (!(await this.deps.writeOffs.find(due._id))) throw owedRefundWrittenOff();
        await this.deps.dues.done(due._id); // owed again by a repeated completion after its write-off
        return 'written_off';
      }
      // The member has had the whole payment back: the line is owed no more.
      if (!(error instanceof NothingLeftToRefund)) throw error;
    }
    const chargeId = transaction.charge_id ?? (retrieved ?? (await provider.retrievePayment(payment))).chargeId;
    const current = (await this.deps.transactions.findById(transaction._id)) ?? transaction;
    if (chargeId) await this.mirror(current, chargeId);
    await this.deps.dues.done(due._id);
    return 'made';
  }

  /**
   * Refunds, mirrored from the charge as the provider lists them now (never added up from events
   * or calls, so an old or repeated one changes nothing). A refund that completes the amount
   * marks the transaction `refunded` and publishes `transaction_refunded`; what the refunded
   * lines granted ends (PurchaseRevocation).
   */
  async mirror(transaction: TransactionRecord, chargeId: string): Promise<void> {
    const provider = await this.deps.providers.for(transaction.resource_id, transaction.mode);
    const charge = await provider.retrieveCharge(chargeId);
    const refunds = charge.refunds.map((refund) => ({
      id: refund.id,
      amount: refund.amount,
      reason: refund.reason,
      created_at: refund.created,
    }));
    const full = charge.amountRefunded >= transaction.amount && transaction.amount > 0;
    const updated = await this.deps.transactions.setRefunds(transaction._id, refunds, charge.amountRefunded, full);
    if (!updated) return;
    if (full && transaction.status !== 'refunded')
      await publishChanged(this.deps.events, this.deps.logger, 'transaction_refunded', updated);
    // Whatever the lines covered granted ends, on every mirror: a line taken back is marked, so a
    // repeat takes nothing back twice and one that failed before is finished (docs/adr/0234).
    await this.deps.revocation.refunded(updated, charge.refunds);
  }
}
