import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** New credentials of a session, chosen before they are stored so that a claim can carry them. */
export interface Rotation {
  token: string;
  /** The new refresh token; the submitted one when the caller keeps its record. */
  refreshToken: string;
  expiresAt: Date;
  refreshExpiresAt: Date;
}

const SALT = Buffer.from('masthead/refresh-reuse');
const INFO = Buffer.from('rotation-seal v1');
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The key is derived from the raw refresh token the client presented (HKDF-SHA256, ADR 0086):
 * the server stores only the token's hash, so only someone holding the token can open what was
 * sealed with it. The input has 256 bits of entropy; a fixed salt is enough.
 */
const keyOf = (refreshToken: string): Buffer => Buffer.from(hkdfSync('sha256', refreshToken, SALT, INFO, 32));

/** AES-256-GCM of the rotation under the refresh token's key: base64url(iv | tag | ciphertext). */
export function sealRotation(refreshToken: string, rotation: Rotation): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(refreshToken), iv);
  const plain = JSON.stringify({
    t: rotation.token,
    r: rotation.refreshToken,
    e: rotation.expiresAt.getTime(),
    re: rotation.refreshExpiresAt.getTime(),
  });
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The sealed rotation, or null when it does not open with this refresh token. */
export function openRotation(refreshToken: string, sealed: string): Rotation | null {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length <= IV_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(refreshToken), raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    const fields = JSON.parse(plain) as { t: string; r: string; e: number; re: number };
    return { token: fields.t, refreshToken: fields.r, expiresAt: new Date(fields.e), refreshExpiresAt: new Date(fields.re) };
  } catch {
    // A wrong key or altered bytes fail the GCM tag: nothing to answer with.
    return null;
  }
}
