import { randomBytes } from 'node:crypto';
import { Algorithm, hash, verify } from '@node-rs/argon2';
import { QueueWaitExceeded, WorkQueue } from './work-queue.js';
import { hashQueueFull } from './password.errors.js';

export interface Argon2Parameters {
  memoryKib: number;
  iterations: number;
  parallelism: number;
}

export interface PasswordHasherOptions extends Argon2Parameters {
  concurrency: number;
  queueLimit: number;
  /** Longest wait for a free slot before the call is refused with 429 (default: no bound). */
  maxWaitMs?: number;
}

export interface VerifyResult {
  valid: boolean;
  /** True when the stored hash used other parameters: the caller should store a new hash. */
  needsRehash: boolean;
}

const PHC_PARAMS = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/;

/**
 * argon2id through a native implementation that runs on libuv's thread pool, so hashing never
 * blocks the event loop. At most `concurrency` hashes run at once and `queueLimit` wait, none
 * longer than `maxWaitMs`; beyond that the call is refused with 429, which keeps every other
 * route's latency flat.
 */
export class PasswordHasher {
  private readonly queue: WorkQueue;
  private dummyHash: Promise<string> | null = null;

  constructor(private readonly options: PasswordHasherOptions) {
    this.queue = new WorkQueue(options.concurrency, options.queueLimit, options.maxWaitMs);
  }

  hash(password: string): Promise<string> {
    return this.run(() =>
      hash(password, {
        algorithm: Algorithm.Argon2id,
        memoryCost: this.options.memoryKib,
        timeCost: this.options.iterations,
        parallelism: this.options.parallelism,
      }),
    );
  }

  async verify(storedHash: string, password: string): Promise<VerifyResult> {
    const valid = await this.run(() => verify(storedHash, password).catch(() => false));
    return { valid, needsRehash: valid && !this.usesCurrentParameters(storedHash) };
  }

  /**
   * Spends the same work as a real verification against a hash of a random secret, so that an
   * unknown email and a wrong password cannot be told apart by timing.
   */
  async verifyDummy(password: string): Promise<void> {
    this.dummyHash ??= this.hash(randomBytes(16).toString('hex'));
    await this.verify(await this.dummyHash, password);
  }

  /** Warms the dummy hash at boot so that the first unknown-email sign-in is not faster. */
  async warm(): Promise<void> {
    this.dummyHash ??= this.hash(randomBytes(16).toString('hex'));
    await this.dummyHash;
  }

  private usesCurrentParameters(storedHash: string): boolean {
    const match = PHC_PARAMS.exec(storedHash);
    return (
      match !== null &&
      Number(match[1]) === this.options.memoryKib &&
      Number(match[2]) === this.options.iterations &&
      Number(match[3]) === this.options.parallelism
    );
  }

  private async run<T>(task: () => Promise<T>): Promise<T> {
    const queued = this.queue.submit(task);
    if (!queued) throw hashQueueFull();
    try {
      return await queued;
    } catch (error) {
      throw error instanceof QueueWaitExceeded ? hashQueueFull() : error;
    }
  }
}
