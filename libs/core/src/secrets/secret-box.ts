import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM with a key ring (docs/adr/0120), for every provider secret a service stores. Each
 * sealed value names the key that sealed it, so the ring can hold the new key and the old ones
 * during a rotation: new writes use the first key, reads use whichever key the value names. The record's identity (`aad`) is bound into the tag:
 * a ciphertext copied onto another resource or mode does not open.
 */
export interface SealedSecret {
  key_id: string;
  iv: string;
  tag: string;
  ciphertext: string;
}

export interface KeyRing {
  /** Seals with this key. */
  current: { id: string; key: Buffer };
  byId: ReadonlyMap<string, Buffer>;
}

const ALGORITHM = 'aes-256-gcm';
/** 96-bit IVs, as NIST SP 800-38D recommends for GCM; random per value. */
const IV_BYTES = 12;

/** Thrown when a value names a key the ring no longer holds, or its tag does not verify. */
export class SecretUnavailable extends Error {
  constructor(reason: string) {
    super(`stored secret unavailable: ${reason}`);
    this.name = 'SecretUnavailable';
  }
}

/**
 * `id:base64key[,id:base64key…]`, the first one current; each key 32 bytes. Throws (at boot,
 * through the config loader) on anything else.
 */
export function parseKeyRing(spec: string): KeyRing {
  const entries = spec
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const separator = part.indexOf(':');
      const id = part.slice(0, separator);
      const key = Buffer.from(part.slice(separator + 1), 'base64');
      if (separator <= 0 || !/^[\w.-]{1,32}$/.test(id)) throw new Error('each key is `id:base64` with a short id');
      if (key.length !== 32) throw new Error(`key ${id} must be 32 bytes (base64 of 32 random bytes)`);
      return [id, key] as const;
    });
  const first = entries[0];
  if (!first) throw new Error('at least one key is required');
  if (new Set(entries.map(([id]) => id)).size !== entries.length) throw new Error('key ids must be distinct');
  return { current: { id: first[0], key: first[1] }, byId: new Map(entries) };
}

export function seal(ring: KeyRing, plaintext: string, aad: string): SealedSecret {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, ring.current.key, iv);
  cipher.setAAD(Buffer.from(aad));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    key_id: ring.current.id,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
}

export function open(ring: KeyRing, sealed: SealedSecret, aad: string): string {
  const key = ring.byId.get(sealed.key_id);
  if (!key) throw new SecretUnavailable(`encryption key ${sealed.key_id} is not configured`);
  try {
    const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    // The reason (a bad tag) says nothing useful and must not carry key material into logs.
    throw new SecretUnavailable(`value sealed with ${sealed.key_id} does not verify`);
  }
}
