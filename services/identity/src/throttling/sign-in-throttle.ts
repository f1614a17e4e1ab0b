import { isDuplicateKey, rowsOf } from '@masthead/core/mongo';
import { Schema, type Connection, type Model } from 'mongoose';
import { tooManyAttempts } from './throttling.errors.js';

/** Failed sign-ins of one account (keyed by normalized email, known or not) in the current hour. */
interface FailureRecord {
  _id: string;
  window_started_at: Date;
  failures: number;
  /** No attempt is evaluated before this instant (growing back-off). */
  blocked_until: Date;
}

const failureSchema = new Schema<FailureRecord>(
  {
    _id: { type: String, required: true },
    window_started_at: { type: Date, required: true },
    failures: { type: Number, required: true },
    blocked_until: { type: Date, required: true },
  },
  { collection: 'signin_failures', versionKey: false },
);

export interface ThrottlePolicy {
  /** The limit: at most this many failed sign-ins per account per window. */
  maxFailuresPerWindow: number;
  windowMs: number;
  /** Failures allowed before the back-off starts. */
  freeFailures: number;
  /** The back-off doubles from this, per further failure, up to `maxBackoffMs`. */
  baseBackoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_THROTTLE: ThrottlePolicy = {
  maxFailuresPerWindow: 100,
  windowMs: 60 * 60 * 1000,
  freeFailures: 5,
  baseBackoffMs: 1000,
  maxBackoffMs: 60_000,
};

/**
 * Per-account limits on guessing. The key is the normalized email whether or not an account
 * exists, so unknown and known emails are throttled alike (no enumeration). A refused attempt is
 * answered before any password hash runs. Counting uses `$inc`, which FerretDB may apply
 * read-then-write: under a burst a few failures can go uncounted, which loosens the limit
 * slightly but never locks anyone out wrongly.
 */
export class SignInThrottle {
  private readonly model: Model<FailureRecord>;

  constructor(
    db: Connection,
    private readonly policy: ThrottlePolicy = DEFAULT_THROTTLE,
  ) {
    this.model = db.models['SignInFailure'] ?? db.model<FailureRecord>('SignInFailure', failureSchema);
  }

  /**
   * Throws 429 too_many_attempts while the account is blocked. True when the account has a
   * record, which a successful sign-in then clears (most sign-ins have none: no write).
   */
  async assertAllowed(email: string): Promise<boolean> {
    // Every sign-in's read: through the driver (ADR 0191).
    const record: FailureRecord | null = await rowsOf(this.model).findOne({ _id: email });
    if (!record) return false;
    if (this.windowOver(record)) return true;
    if (record.failures >= this.policy.maxFailuresPerWindow || record.blocked_until.getTime() > Date.now()) throw tooManyAttempts();
    return true;
  }

  async recordFailure(email: string, retried = false): Promise<void> {
    const now = new Date();
    const record = await this.model.findById(email).lean<FailureRecord>().exec();
    if (!record || this.windowOver(record)) {
      try {
        await this.model
          .updateOne({ _id: email }, { $set: { window_started_at: now, failures: 1, blocked_until: now } }, { upsert: true })
          .exec();
      } catch (error) {
        // Two first failures at once (other replicas): the record exists now, so count on it.
        if (!isDuplicateKey(error) || retried) throw error;
        await this.recordFailure(email, true);
      }
      return;
    }
    const failures = record.failures + 1;
    const extra = failures - this.policy.freeFailures;
    const backoff = extra > 0 ? Math.min(this.policy.baseBackoffMs * 2 ** (extra - 1), this.policy.maxBackoffMs) : 0;
    await this.model
      .updateOne({ _id: email }, { $inc: { failures: 1 }, $set: { blocked_until: new Date(now.getTime() + backoff) } })
      .exec();
  }

  /** A successful sign-in clears the account's record. */
  async reset(email: string): Promise<void> {
    await this.model.deleteOne({ _id: email }).exec();
  }

  private windowOver(record: FailureRecord): boolean {
    return record.window_started_at.getTime() + this.policy.windowMs <= Date.now();
  }
}
