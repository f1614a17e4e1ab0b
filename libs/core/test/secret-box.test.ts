import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyRingOrDevelopment, keyRingSetting, open, parseKeyRing, seal, SecretUnavailable } from '../src/secrets/index.js';

const key = () => randomBytes(32).toString('base64');

describe('secret box', () => {
  it('opens what it sealed, and the sealed form holds neither the plaintext nor the key', () => {
    const spec = `k1:${key()}`;
    const ring = parseKeyRing(spec);
    const sealed = seal(ring, 'sk_test_secret', 'resource:1:test');
    expect(sealed.key_id).toBe('k1');
    expect(JSON.stringify(sealed)).not.toContain('sk_test_secret');
    expect(JSON.stringify(sealed)).not.toContain(spec.slice(3));
    expect(open(ring, sealed, 'resource:1:test')).toBe('sk_test_secret');
  });

  it('refuses a value moved to another record (its associated data)', () => {
    const ring = parseKeyRing(`k1:${key()}`);
    const sealed = seal(ring, 'sk_test_secret', 'resource:1:test');
    expect(() => open(ring, sealed, 'resource:2:test')).toThrow(SecretUnavailable);
  });

  it('refuses a tampered ciphertext', () => {
    const ring = parseKeyRing(`k1:${key()}`);
    const sealed = seal(ring, 'sk_test_secret', 'aad');
    const bytes = Buffer.from(sealed.ciphertext, 'base64');
    bytes[0] = (bytes[0] ?? 0) ^ 1;
    expect(() => open(ring, { ...sealed, ciphertext: bytes.toString('base64') }, 'aad')).toThrow(SecretUnavailable);
  });

  it('rotates: a new first key seals, the old one still opens what it sealed, and a dropped key fails clearly', () => {
    const oldKey = key();
    const newKey = key();
    const before = seal(parseKeyRing(`old:${oldKey}`), 'kept', 'aad');
    const during = parseKeyRing(`new:${newKey},old:${oldKey}`);
    expect(open(during, before, 'aad')).toBe('kept');
    expect(seal(during, 'fresh', 'aad').key_id).toBe('new');
    expect(() => open(parseKeyRing(`new:${newKey}`), before, 'aad')).toThrow(/old is not configured/);
  });

  it('refuses a malformed ring at boot', () => {
    expect(() => parseKeyRing('')).toThrow(/at least one key/);
    expect(() => parseKeyRing(`k1:${randomBytes(16).toString('base64')}`)).toThrow(/32 bytes/);
    expect(() => parseKeyRing(`:${key()}`)).toThrow(/id:base64/);
    expect(() => parseKeyRing(`k1:${key()},k1:${key()}`)).toThrow(/distinct/);
  });

  it('reads a ring setting: parsed at boot, the development ring outside production only', () => {
    const setting = keyRingSetting();
    expect(setting.safeParse(undefined).success).toBe(true);
    expect(setting.safeParse(`k1:${key()}`).success).toBe(true);
    expect(setting.safeParse('k1:short').error?.issues[0]?.message).toMatch(/32 bytes/);
    const development = `dev:${key()}`;
    expect(keyRingOrDevelopment(undefined, 'test', development)?.current.id).toBe('dev');
    expect(keyRingOrDevelopment(undefined, 'production', development)).toBeNull();
    expect(keyRingOrDevelopment(`k9:${key()}`, 'production', development)?.current.id).toBe('k9');
  });
});
