import { z } from 'zod';

const positive = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Settings of codes sent to members and of external login tokens (docs/adr/0055, 0057). */
export const recoveryEnv = {
  /** Email confirmation and email change codes: a day, long enough for a mail to be read. */
  EMAIL_CODE_TTL_SECONDS: positive(24 * 3600),
  /** Password reset codes: an hour (OWASP Forgot Password Cheat Sheet: short-lived). */
  RESET_CODE_TTL_SECONDS: positive(3600),
  /** External login tokens: minutes; an operator hands them on at once. Also the upper bound. */
  EXTERNAL_LOGIN_TTL_SECONDS: positive(300),
  /** Code requests (resend, reset, email change) per client address per hour, then 429. */
  CODE_REQUEST_LIMIT_PER_HOUR: positive(20),
  /** Code requests per account (email or member) per hour, known or not, then 429: no mail bombing. */
  CODE_REQUEST_ACCOUNT_LIMIT_PER_HOUR: positive(5),
  /** Code and login-token uses per client address per hour, then 429. */
  CODE_ATTEMPT_LIMIT_PER_HOUR: positive(60),
};

export interface RecoveryConfig {
  EMAIL_CODE_TTL_SECONDS: number;
  RESET_CODE_TTL_SECONDS: number;
  EXTERNAL_LOGIN_TTL_SECONDS: number;
  CODE_REQUEST_LIMIT_PER_HOUR: number;
  CODE_REQUEST_ACCOUNT_LIMIT_PER_HOUR: number;
  CODE_ATTEMPT_LIMIT_PER_HOUR: number;
}
