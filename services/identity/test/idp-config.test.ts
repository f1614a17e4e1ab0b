import { ConfigError } from '@masthead/core/config';
import { describe, expect, it } from 'vitest';
import { loadIdentityConfig } from '../src/config.js';

/** The identity provider's variables (ADR 0050, ADR 0052). */
describe('identity config for the identity provider', () => {
  it('refuses the Auth emulator and the local docstore in production, naming both', () => {
    const env = { MASTHEAD_ENV: 'production', FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9099', DOCSTORE_BACKEND: 'local' };
    expect(() => loadIdentityConfig(env)).toThrow(ConfigError);
    expect(() => loadIdentityConfig(env)).toThrow(/FIREBASE_AUTH_EMULATOR_HOST[\s\S]*DOCSTORE_BACKEND/);
  });

  it('allows the emulator in development and test, and defaults the docstore by environment', () => {
    const test = loadIdentityConfig({ MASTHEAD_ENV: 'test', FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9099' });
    expect(test.FIREBASE_AUTH_EMULATOR_HOST).toBe('127.0.0.1:9099');
    expect(test.DOCSTORE_BACKEND).toBe('local');
    expect(loadIdentityConfig({ MASTHEAD_ENV: 'production' }).DOCSTORE_BACKEND).toBe('firestore');
  });

  it('refuses an emulator host that is not host:port', () => {
    expect(() => loadIdentityConfig({ MASTHEAD_ENV: 'test', FIREBASE_AUTH_EMULATOR_HOST: 'http://x' })).toThrow(
      /FIREBASE_AUTH_EMULATOR_HOST/,
    );
  });
});
