import { createHash, randomBytes } from 'node:crypto';

/**
 * Session tokens, refresh tokens and authorization codes are 256 random bits, shown to the
 * client once and stored only as their SHA-256. A fast hash is enough: the input has full
 * entropy, so there is nothing to guess offline (unlike passwords).
 */
export const newToken = (): string => randomBytes(32).toString('base64url');

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');
