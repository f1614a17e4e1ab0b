import { randomBytes } from 'node:crypto';
import { createServiceClient } from '@masthead/core/grpc';
import { AudienceServiceService } from '@masthead/proto/integrations/audience';
import { ProviderConfigServiceService } from '@masthead/proto/integrations/provider_config';
import { startRecordingServer, startServiceHarness, type RecordingServer, type ServiceHarness } from '@masthead/service-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadIntegrationsConfig, startIntegrationsService } from '../src/app.js';

const ring = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;

/**
 * Provider configuration (docs/adr/0164): secrets sealed with INTEGRATIONS_SECRETS_KEYS and never
 * returned, settings validated, the ring rotated at boot; the production rules of the config.
 */
describe('provider configuration', () => {
  const RESOURCE = 7007;
  const API_KEY = `${'a1'.repeat(16)}-us7`;
  const oldKey = ring('old');
  let harness: ServiceHarness<typeof ProviderConfigServiceService>;
  let provider: RecordingServer;

  beforeAll(async () => {
    provider = await startRecordingServer(() => ({ body: { categories: [], total_items: 0 } }));
    harness = await startServiceHarness({
      service: 'integrations',
      definition: ProviderConfigServiceService,
      env: { MASTHEAD_ENV: 'test', INTEGRATIONS_SECRETS_KEYS: oldKey, AUDIENCE_API_BASE: provider.url },
      start: (env) => startIntegrationsService(loadIntegrationsConfig(env)),
    });
  });
  afterAll(async () => {
    await harness?.stop();
    await provider?.close();
  });

  it('stores each secret sealed and answers only its last four characters and key ID', async () => {
    const config = harness.client;
    const summary = await config.setProviderSecret({ resourceId: RESOURCE, provider: 'audience', secret: ` ${API_KEY}\n` });
    expect(summary).toEqual({
      resourceId: RESOURCE,
      provider: 'audience',
      hasSecret: true,
      secretLast4: '-us7',
      keyId: 'old',
      settings: {},
      updatedAt: expect.any(String),
    });
    const tokens = { access_token: `at-${randomBytes(8).toString('hex')}`, refresh_token: `rt-${randomBytes(8).toString('hex')}` };
    const listmgr = await config.setProviderSecret({ resourceId: RESOURCE, provider: 'listmgr', secret: JSON.stringify(tokens) });
    expect(listmgr.secretLast4).toBe(tokens.access_token.slice(-4));
    const rows = await harness.db.collection('provider_configs').find({ resource_id: RESOURCE }).toArray();
    expect(rows.map((row) => row['_id']).sort()).toEqual([`${RESOURCE}:audience`, `${RESOURCE}:listmgr`]);
    for (const secret of [API_KEY, tokens.access_token, tokens.refresh_token]) expect(JSON.stringify(rows)).not.toContain(secret);
    // Settings replace settings and keep the secret.
    const withSettings = await config.setAudienceSettings({ resourceId: RESOURCE, listId: 'list-1', interestCategory: 'News', server: '' });
    expect(withSettings).toMatchObject({ hasSecret: true, settings: { list_id: 'list-1', interest_category: 'News', server: '' } });
    expect(await config.getProviderConfig({ resourceId: RESOURCE + 1, provider: 'audience' })).toEqual({
      resourceId: RESOURCE + 1,
      provider: 'audience',
      hasSecret: false,
      secretLast4: '',
      keyId: '',
      settings: {},
      updatedAt: '',
    });
  });

  it('refuses unknown providers, secrets of the wrong shape and invalid settings with 400s', async () => {
    const config = harness.client;
    await expect(config.setProviderSecret({ resourceId: RESOURCE, provider: 'mailer', secret: API_KEY })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_provider',
    });
    await expect(config.setProviderSecret({ resourceId: RESOURCE, provider: 'crm', secret: 'short' })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_secret',
    });
    await expect(config.setProviderSecret({ resourceId: RESOURCE, provider: 'listmgr', secret: 'token-not-json' })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_secret',
    });
    await expect(config.setAudienceSettings({ resourceId: RESOURCE, listId: ' ', interestCategory: '', server: '' })).rejects.toMatchObject(
      {
        status: 400,
        code: 'invalid_list_id',
      },
    );
    await expect(config.setCrmSettings({ resourceId: RESOURCE, accountName: 'not an account!', active: true })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_account_name',
    });
    await expect(
      config.setListmgrSettings({
        resourceId: RESOURCE,
        clientId: '',
        customFields: [{ key: 'X', source: 'password_hash' }],
        consentToTrack: '',
      }),
    ).rejects.toMatchObject({ status: 400, code: 'invalid_custom_fields.source' });
  });

  it('re-seals every secret under the new key at boot and opens it with the rotated ring', async () => {
    const newKey = ring('new');
    const rotated = await startServiceHarness({
      service: 'integrations',
      definition: ProviderConfigServiceService,
      env: {
        MASTHEAD_ENV: 'test',
        MONGO_DB_PREFIX: harness.prefix,
        INTEGRATIONS_SECRETS_KEYS: `${newKey},${oldKey}`,
        AUDIENCE_API_BASE: provider.url,
      },
      start: (env) => startIntegrationsService(loadIntegrationsConfig(env)),
    });
    try {
      expect((await rotated.client.getProviderConfig({ resourceId: RESOURCE, provider: 'audience' })).keyId).toBe('new');
      expect((await rotated.client.getProviderConfig({ resourceId: RESOURCE, provider: 'listmgr' })).keyId).toBe('new');
    } finally {
      await rotated.stop();
    }
    // Only the new key now: the secret still opens (the provider sees the key in HTTP Basic).
    const onlyNew = await startServiceHarness({
      service: 'integrations',
      definition: AudienceServiceService,
      env: { MASTHEAD_ENV: 'test', MONGO_DB_PREFIX: harness.prefix, INTEGRATIONS_SECRETS_KEYS: newKey, AUDIENCE_API_BASE: provider.url },
      start: (env) => startIntegrationsService(loadIntegrationsConfig(env)),
    });
    try {
      const audience = createServiceClient(AudienceServiceService, onlyNew.address, { defaultDeadlineMs: 5000 });
      expect(await audience.listInterests({ scope: { resourceId: RESOURCE } })).toEqual({ items: [] });
      audience.close();
      const basic = provider.requests.at(-1)?.headers.authorization?.replace(/^Basic /, '') ?? '';
      expect(Buffer.from(basic, 'base64').toString('utf8')).toBe(`masthead:${API_KEY}`);
      expect(provider.requests.at(-1)?.path).toBe('/3.0/lists/list-1/interest-categories');
    } finally {
      await onlyNew.stop();
    }
  });

  it('starts without a key ring in production, and then stores no secret: 503 secrets_key_missing', async () => {
    const ringless = await startServiceHarness({
      service: 'integrations',
      definition: ProviderConfigServiceService,
      env: { MASTHEAD_ENV: 'production' },
      start: (env) => startIntegrationsService(loadIntegrationsConfig(env)),
    });
    try {
      await expect(
        ringless.client.setProviderSecret({ resourceId: RESOURCE, provider: 'audience', secret: API_KEY }),
      ).rejects.toMatchObject({
        status: 503,
        code: 'secrets_key_missing',
      });
    } finally {
      await ringless.stop();
    }
  });

  it('refuses the development ring and plain-http providers in production, and provider bases with a path', () => {
    const production = { MASTHEAD_ENV: 'production', INTEGRATIONS_SECRETS_KEYS: oldKey };
    expect(() => loadIntegrationsConfig({ ...production, CRM_API_BASE: 'http://crm.internal' })).toThrow(
      /CRM_API_BASE: plain http is not allowed in production/,
    );
    expect(() => loadIntegrationsConfig({ MASTHEAD_ENV: 'test', LISTMGR_API_BASE: 'http://127.0.0.1:1/api' })).toThrow(
      /LISTMGR_API_BASE: scheme, host and port only/,
    );
    expect(() => loadIntegrationsConfig({ MASTHEAD_ENV: 'test', INTEGRATIONS_SECRETS_KEYS: 'k:short' })).toThrow(
      /INTEGRATIONS_SECRETS_KEYS/,
    );
    expect(loadIntegrationsConfig(production).PROVIDER_TIMEOUT_MS).toBe(4000);
  });
});
