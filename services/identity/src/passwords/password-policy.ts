import { dictionary } from '@zxcvbn-ts/language-common';
import { passwordTooCommon, passwordTooLong, passwordTooShort } from './password.errors.js';

/** NIST SP 800-63B: at least 8 characters, at least 64 accepted, no composition rules. */
export const MIN_PASSWORD_LENGTH = 8;
/** Far above any passphrase; bounds the hashing work one request can ask for. */
export const MAX_PASSWORD_LENGTH = 1024;

/**
 * The ~49,000 most common passwords of breach corpora, as bundled by zxcvbn-ts (maintained;
 * nothing is fetched at run time). Compared case-insensitively, since "Password1" is as weak.
 */
const COMMON_PASSWORDS: ReadonlySet<string> = new Set(
  (dictionary['passwords-common'] as string[]).map((password) => password.toLowerCase()),
);

/** Refuses a new password that breaks the policy with 409 invalid_password, saying why. */
export function assertAcceptablePassword(password: string): void {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) {
    throw passwordTooShort(MIN_PASSWORD_LENGTH);
  }
  if (length > MAX_PASSWORD_LENGTH) {
    throw passwordTooLong(MAX_PASSWORD_LENGTH);
  }
  if (COMMON_PASSWORDS.has(password.toLowerCase())) {
    throw passwordTooCommon();
  }
}
