import { createHash, randomBytes } from 'node:crypto';

/** The recognizable prefix of every key, so that a leaked key is easy to spot and to scan for. */
export const SERVICE_KEY_PREFIX = 'msk_';

/** `msk_` + 43 base64url characters (32 random bytes). */
const KEY_PATTERN = /^msk_[A-Za-z0-9_-]{43}$/;

/**
 * A new key: 256 random bits, shown once, stored only as SHA-256 hex. A fast hash suffices, as
 * for session tokens (ADR 0004): the input has full entropy, so nothing can be guessed offline.
 */
export const newServiceKey = (): string => `${SERVICE_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;

export const hashServiceKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** False for anything that cannot be a key, so that it costs no database read. */
export const isWellFormedServiceKey = (key: string): boolean => KEY_PATTERN.test(key);
