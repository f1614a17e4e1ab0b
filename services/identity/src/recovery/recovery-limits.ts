import type { AddressLimiter } from '../throttling/address-limiter.js';
import type { RecoveryConfig } from './recovery.config.js';

export interface RecoveryLimitsDeps {
  limiter: AddressLimiter;
  config: RecoveryConfig;
}

/**
 * The fixed-window limits of code requests and code uses (docs/adr/0055), counted by the shared
 * AddressLimiter. An over-limit request answers 429 too_many_requests.
 */
export class RecoveryLimits {
  constructor(private readonly deps: RecoveryLimitsDeps) {}

  /** A request that sends mail, counted per client address. */
  async requestFromAddress(action: string, ip: string): Promise<void> {
    await this.deps.limiter.consume(action, ip, this.deps.config.CODE_REQUEST_LIMIT_PER_HOUR);
  }

  /** The same request counted per account (a normalized email, known or not, or a member ID). */
  async requestForAccount(action: string, account: string): Promise<void> {
    await this.deps.limiter.consume(`${action}_account`, account, this.deps.config.CODE_REQUEST_ACCOUNT_LIMIT_PER_HOUR);
  }

  /** A use of a code or login token (a guess, when it fails), per client address. */
  async attempt(ip: string): Promise<void> {
    await this.deps.limiter.consume('code_attempt', ip, this.deps.config.CODE_ATTEMPT_LIMIT_PER_HOUR);
  }
}
