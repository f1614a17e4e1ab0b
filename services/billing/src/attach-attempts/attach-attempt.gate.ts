import { claimSlot } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import type { Member } from '../support/member-scope.js';
import { attachAttemptModel, type AttachAttemptRecord } from './attach-attempt.schema.js';
import { attachAttemptsExceeded } from './attach-attempt.errors.js';

/** The window attempts are counted in (docs/adr/0125). */
export const ATTEMPT_WINDOW_SECONDS = 3600;
/** Attempts per member, resource and window unless the resource sets `card_attach_attempts_limit`. */
export const DEFAULT_ATTEMPT_LIMIT = 5;
/** Highest limit a resource may set: each attempt may try every slot once. */
const MAX_ATTEMPT_LIMIT = 100;

export interface AttemptResult {
  attempts: number;
  limit: number;
  windowSeconds: number;
}

const limitOf = (settings: Record<string, unknown> | undefined): number => {
  const value = settings?.['card_attach_attempts_limit'];
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? Math.min(value, MAX_ATTEMPT_LIMIT) : DEFAULT_ATTEMPT_LIMIT;
};

/**
 * POST /user/card/attempt-attach: records one card-attachment attempt and gates it, a brake on
 * card testing (a stolen-card list tried against a saved-card form). Slot claims make the count
 * exact under concurrency.
 */
export class AttachAttemptGate {
  private readonly model: Model<AttachAttemptRecord>;

  constructor(db: Connection) {
    this.model = attachAttemptModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  async record(member: Member, settings: Record<string, unknown> | undefined, now = new Date()): Promise<AttemptResult> {
    const limit = limitOf(settings);
    const window = Math.floor(now.getTime() / 1000 / ATTEMPT_WINDOW_SECONDS) * ATTEMPT_WINDOW_SECONDS;
    const slot = await claimSlot(
      (n) => this.model.create({ _id: `${member.resourceId}:${member.userId}:${window}:${n + 1}`, created_at: now }),
      0,
      limit,
    );
    if (slot === null) throw attachAttemptsExceeded(limit);
    return { attempts: slot + 1, limit, windowSeconds: ATTEMPT_WINDOW_SECONDS };
  }
}
