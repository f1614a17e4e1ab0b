import { ConfigError } from '@masthead/core/config';
import { describe, expect, it } from 'vitest';
import { loadIdentityConfig } from '../src/config.js';

/** SOCIAL_PROVIDERS is validated at start, every problem named at once (docs/adr/0066). */
describe('SOCIAL_PROVIDERS', () => {
  const valid = { issuer: 'https://accounts.example.test', jwks_url: 'https://accounts.example.test/jwks', audiences: ['client-1'] };
  const load = (providers: unknown) =>
    loadIdentityConfig({ SOCIAL_PROVIDERS: typeof providers === 'string' ? providers : JSON.stringify(providers) });

  it('defaults to no provider and RS256 only', () => {
    expect(loadIdentityConfig({}).SOCIAL_PROVIDERS).toEqual({});
    expect(load({ acme: valid }).SOCIAL_PROVIDERS).toEqual({ acme: { ...valid, algorithms: ['RS256'] } });
  });

  it('allows plain HTTP only for a JWKS on loopback', () => {
    expect(load({ local: { ...valid, jwks_url: 'http://127.0.0.1:9999/jwks' } }).SOCIAL_PROVIDERS['local']?.jwks_url).toBe(
      'http://127.0.0.1:9999/jwks',
    );
  });

  it.each([
    ['not JSON', '{acme'],
    ['a bad provider name', { 'Acme:1': valid }],
    ['a missing issuer', { acme: { ...valid, issuer: '' } }],
    ['a JWKS over plain HTTP', { acme: { ...valid, jwks_url: 'http://keys.example.test/jwks' } }],
    ['no audience', { acme: { ...valid, audiences: [] } }],
    ['a symmetric algorithm', { acme: { ...valid, algorithms: ['HS256'] } }],
    ['alg none', { acme: { ...valid, algorithms: ['none'] } }],
    ['an unknown setting', { acme: { ...valid, client_secret: 'x' } }],
  ])('refuses %s', (_name, providers) => {
    expect(() => load(providers)).toThrow(ConfigError);
    expect(() => load(providers)).toThrow(/SOCIAL_PROVIDERS/);
  });
});
