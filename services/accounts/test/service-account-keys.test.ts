import { describe, expect, it } from 'vitest';
import { normalizeAction } from '../src/service-accounts/service-account.actions.js';
import { parseCreateServiceAccount } from '../src/service-accounts/service-account.command.js';
import { hashServiceKey, isWellFormedServiceKey, newServiceKey } from '../src/service-accounts/service-account.keys.js';

describe('service keys', () => {
  it('are msk_ plus 256 random bits, hashed with SHA-256', () => {
    const key = newServiceKey();
    expect(key).toMatch(/^msk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice(4), 'base64url')).toHaveLength(32);
    expect(isWellFormedServiceKey(key)).toBe(true);
    expect(newServiceKey()).not.toBe(key);
    expect(hashServiceKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashServiceKey(key)).toBe(hashServiceKey(key));
  });

  it('are recognized only in their exact form', () => {
    for (const text of ['', 'msk_', 'msk_short', `MSK_${'a'.repeat(43)}`, `msk_${'a'.repeat(44)}`, `msk_${'+'.repeat(43)}`]) {
      expect(isWellFormedServiceKey(text), text).toBe(false);
    }
  });
});

describe('service-account grants', () => {
  it('normalize the method and spacing of an action', () => {
    expect(normalizeAction(' get   /integrations/external/subscription ')).toBe('GET /integrations/external/subscription');
  });

  it('must name a service-account action; full access or one grant is required', () => {
    const base = { resourceId: 1, title: 'T', fullAccess: false };
    expect(parseCreateServiceAccount({ ...base, grants: ['put /integrations/external/refund'] }).grants).toEqual([
      'PUT /integrations/external/refund',
    ]);
    expect(parseCreateServiceAccount({ ...base, fullAccess: true, grants: [] }).grants).toEqual([]);
    expect(() => parseCreateServiceAccount({ ...base, grants: [] })).toThrow(/grant at least one action/);
    expect(() => parseCreateServiceAccount({ ...base, grants: ['GET /user'] })).toThrow(/grants: each one of/);
  });
});
