import type { EntitlementTiming } from './entitlements.config.js';

/** What the schedule needs of a stored key. */
export interface ScheduledKey {
  kid: string;
  generation: number;
  createdAt: number;
  signsFrom: number;
}

/**
 * A key's place in the rotation at one moment (docs/adr/0247):
 * - `pending`: published, not signing yet (a rotation's new key, for the rotation lead);
 * - `signing`: the one key that signs new tokens;
 * - `retiring`: published, no longer signing: its tokens may still be alive;
 * - `retired`: no longer published; its last token has expired.
 */
export type KeyState = 'pending' | 'signing' | 'retiring' | 'retired';

/** Times are milliseconds since the epoch; `keys` in any order. */
export class KeySchedule<K extends ScheduledKey> {
  private readonly keys: readonly K[];

  constructor(
    keys: readonly K[],
    private readonly timing: Pick<EntitlementTiming, 'rotationLeadMs' | 'retireAfterMs'>,
  ) {
    this.keys = [...keys].sort((a, b) => a.generation - b.generation);
  }

  /** The key that signs at `now`: the newest one whose signing has begun. */
  signerAt(now: number): K | undefined {
    return this.keys.findLast((key) => key.signsFrom <= now);
  }

  /** When `key` stops being published: its successor's start plus its last token's life; open while it has none. */
  retiresAt(key: K): number | undefined {
    const successor = this.keys.find((other) => other.generation > key.generation);
    return successor === undefined ? undefined : successor.signsFrom + this.timing.retireAfterMs;
  }

  /** The keys a verifier needs at `now`: every key not retired, whether signing yet or not. */
  publishedAt(now: number): K[] {
    return this.keys.filter((key) => key.createdAt <= now && (this.retiresAt(key) ?? Number.POSITIVE_INFINITY) > now);
  }

  stateAt(key: K, now: number): KeyState {
    if ((this.retiresAt(key) ?? Number.POSITIVE_INFINITY) <= now) return 'retired';
    if (key.signsFrom > now) return 'pending';
    return this.signerAt(now) === key ? 'signing' : 'retiring';
  }

  /**
   * The next key's generation and start: the first key signs at once (nothing was published
   * before it, so no verifier can hold a stale set); every later one a rotation lead after `now`.
   */
  nextAt(now: number): { generation: number; signsFrom: number } {
    const last = this.keys.at(-1);
    if (!last) return { generation: 1, signsFrom: now };
    return { generation: last.generation + 1, signsFrom: now + this.timing.rotationLeadMs };
  }

  all(): readonly K[] {
    return this.keys;
  }
}
