import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A code sent to a member (or a login token given to an operator) is a split token: a public
 * selector that finds the record by `_id`, then a secret verifier stored only as its SHA-256
 * and compared in constant time (docs/adr/0055). 96 + 192 random bits: nothing to guess, so a
 * fast hash is enough and no pepper is needed (as for session tokens, ADR 0004).
 */
const SELECTOR_BYTES = 12;
const VERIFIER_BYTES = 24;
/** base64url length of each part (no padding: both sizes are multiples of 3). */
const SELECTOR_LENGTH = (SELECTOR_BYTES / 3) * 4;
const VERIFIER_LENGTH = (VERIFIER_BYTES / 3) * 4;
export const CODE_LENGTH = SELECTOR_LENGTH + VERIFIER_LENGTH;
const CODE_PATTERN = new RegExp(`^[A-Za-z0-9_-]{${CODE_LENGTH}}$`);

export interface NewCode {
  /** What the member receives; shown once. */
  code: string;
  selector: string;
  verifierHash: string;
}

export interface ParsedCode {
  selector: string;
  verifier: string;
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export function newCode(): NewCode {
  const selector = randomBytes(SELECTOR_BYTES).toString('base64url');
  const verifier = randomBytes(VERIFIER_BYTES).toString('base64url');
  return { code: selector + verifier, selector, verifierHash: sha256(verifier).toString('hex') };
}

/** The code's two parts, or null when it cannot be one of ours (wrong length or alphabet). */
export function parseCode(raw: string): ParsedCode | null {
  const code = raw.trim();
  if (!CODE_PATTERN.test(code)) return null;
  return { selector: code.slice(0, SELECTOR_LENGTH), verifier: code.slice(SELECTOR_LENGTH) };
}

/** A stored hash for lookups that found nothing, so that every comparison does the same work. */
export const ABSENT_VERIFIER_HASH = sha256(randomBytes(VERIFIER_BYTES).toString('base64url')).toString('hex');

/**
 * Whether the verifier hashes to the stored hash, in time independent of where they differ:
 * both sides are 32-byte digests compared with `timingSafeEqual`. A stored value of another
 * length (corrupt record) is compared with itself and answers false, taking the same path.
 */
export function verifierMatches(verifier: string, storedHashHex: string): boolean {
  const presented = sha256(verifier);
  const stored = Buffer.from(storedHashHex, 'hex');
  if (stored.length !== presented.length) {
    timingSafeEqual(presented, presented);
    return false;
  }
  return timingSafeEqual(presented, stored);
}
