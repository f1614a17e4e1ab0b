import { describe, expect, it } from 'vitest';
import { cardProviderClientOptions } from '../src/card-provider/client.js';
import { loadBillingConfig } from '../src/config.js';

describe('card-provider configuration', () => {
  it("uses the provider's own API unless CARDPROVIDER_API_BASE names another server", () => {
    expect(cardProviderClientOptions(loadBillingConfig({ MASTHEAD_ENV: 'production' }))).toEqual({
      telemetry: false,
      timeout: 4000,
      maxNetworkRetries: 0,
    });
    const local = loadBillingConfig({
      MASTHEAD_ENV: 'test',
      CARDPROVIDER_API_BASE: 'http://127.0.0.1:12111',
      CARDPROVIDER_TIMEOUT_MS: '1500',
    });
    expect(cardProviderClientOptions(local)).toEqual({
      telemetry: false,
      timeout: 1500,
      maxNetworkRetries: 0,
      host: '127.0.0.1',
      port: 12111,
      protocol: 'http',
    });
    const proxy = loadBillingConfig({ MASTHEAD_ENV: 'production', CARDPROVIDER_API_BASE: 'https://payments-proxy.internal' });
    expect(cardProviderClientOptions(proxy)).toMatchObject({ host: 'payments-proxy.internal', port: 443, protocol: 'https' });
    expect(
      cardProviderClientOptions(loadBillingConfig({ MASTHEAD_ENV: 'test', CARDPROVIDER_API_BASE: 'http://[::1]:8420' })),
    ).toMatchObject({ host: '::1' });
  });

  it('refuses a plain-http provider in production, and any base with a path', () => {
    expect(() => loadBillingConfig({ MASTHEAD_ENV: 'production', CARDPROVIDER_API_BASE: 'http://127.0.0.1:12111' })).toThrow(
      /CARDPROVIDER_API_BASE: plain http is not allowed in production/,
    );
    expect(() => loadBillingConfig({ MASTHEAD_ENV: 'test', CARDPROVIDER_API_BASE: 'http://127.0.0.1:12111/v1' })).toThrow(
      /CARDPROVIDER_API_BASE: scheme, host and port only/,
    );
    expect(() => loadBillingConfig({ MASTHEAD_ENV: 'test', CARDPROVIDER_API_BASE: 'ftp://example.test' })).toThrow(/CARDPROVIDER_API_BASE/);
  });
});
