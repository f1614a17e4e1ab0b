import { parseOrThrow } from '@masthead/core/errors';
import type { Logger } from '@masthead/core/logging';
import { open, seal, SecretUnavailable, type KeyRing, type SealedSecret } from '@masthead/core/secrets';
import type { z } from 'zod';
import { invalidProviderName, invalidProviderSecret, noIntegrationsKeyRing } from './provider-config.errors.js';
import type { ProviderConfigRepository } from './provider-config.repository.js';
import { PROVIDERS, type ProviderConfigRecord, type ProviderName } from './provider-config.schema.js';
import { audienceSettings, crmSettings, listmgrSettings, listmgrTokens, readListmgrTokens } from './provider-settings.js';

/** Each provider's settings schema. */
const SETTINGS = { audience: audienceSettings, crm: crmSettings, listmgr: listmgrSettings } as const;
export type SettingsOf<P extends ProviderName> = z.output<(typeof SETTINGS)[P]>;

/** API keys as the email-list (`…-us21`) and CRM providers issue them. */
const API_KEYS: Record<Exclude<ProviderName, 'listmgr'>, RegExp> = {
  audience: /^[A-Za-z0-9]{16,64}(-[a-z]{2,4}\d{1,3})?$/,
  crm: /^[A-Za-z0-9]{16,128}$/,
};

/** Binds a sealed value to its record: copied onto another resource or provider it does not open. */
const aadOf = (resourceId: number, provider: ProviderName) => `integrations:${provider}:${resourceId}`;

export const parseProvider = (provider: string): ProviderName => {
  if (!(PROVIDERS as readonly string[]).includes(provider)) throw invalidProviderName();
  return provider as ProviderName;
};

/** A provider's configuration as an operation uses it: null parts are missing or unusable. */
export interface ProviderAccess<P extends ProviderName> {
  record: ProviderConfigRecord;
  settings: SettingsOf<P> | null;
  secret: string | null;
}

interface Deps {
  configs: ProviderConfigRepository;
  /** Null when no ring is configured (production without INTEGRATIONS_SECRETS_KEYS). */
  ring: KeyRing | null;
  logger: Logger;
}

/**
 * Provider configurations per resource (docs/adr/0164). A secret's plaintext exists only in
 * memory while a provider call is made; nothing here logs it or returns it on the wire.
 */
export class ProviderConfigService {
  constructor(private readonly deps: Deps) {}

  async setSecret(resourceId: number, providerText: string, secretText: string): Promise<ProviderConfigRecord> {
    const provider = parseProvider(providerText);
    const secret = normalizeSecret(provider, secretText);
    const ring = this.deps.ring;
    if (!ring) throw noIntegrationsKeyRing();
    return this.deps.configs.setSecret(resourceId, provider, seal(ring, secret, aadOf(resourceId, provider)), last4Of(provider, secret));
  }

  setSettings<P extends ProviderName>(resourceId: number, provider: P, input: unknown): Promise<ProviderConfigRecord> {
    const settings = parseOrThrow(SETTINGS[provider], input) as Record<string, unknown>;
    return this.deps.configs.setSettings(resourceId, provider, settings);
  }

  get(resourceId: number, providerText: string): Promise<ProviderConfigRecord | null> {
    return this.deps.configs.find(resourceId, parseProvider(providerText));
  }

  /** The configuration with its settings parsed and its secret opened; null when none is stored. */
  async access<P extends ProviderName>(resourceId: number, provider: P): Promise<ProviderAccess<P> | null> {
    const record = await this.deps.configs.find(resourceId, provider);
    if (!record) return null;
    const parsed = SETTINGS[provider].safeParse(record.settings);
    return { record, settings: parsed.success ? (parsed.data as SettingsOf<P>) : null, secret: this.open(record) };
  }

  /** Replaces a secret the service itself renewed (refreshed OAuth tokens); false when another write won. */
  replaceSecret(record: ProviderConfigRecord, secret: string): Promise<boolean> {
    const ring = this.deps.ring;
    if (!ring) return Promise.resolve(false);
    const sealed = seal(ring, secret, aadOf(record.resource_id, record.provider));
    return this.deps.configs.replaceSecret(record, sealed, last4Of(record.provider, secret));
  }

  /**
   * Re-seals every secret still sealed with an older key of the ring under the current key (run
   * at boot; the rotation procedure of docs/adr/0164). Returns how many were re-sealed.
   */
  async resealAll(): Promise<number> {
    const { configs, ring } = this.deps;
    if (!ring) return 0;
    let count = 0;
    for (const record of await configs.listSealedWithOtherKeys(ring.current.id)) {
      const secret = this.open(record);
      if (secret !== null && (await this.replaceSecret(record, secret))) count++;
    }
    return count;
  }

  /** The plaintext, or null when none is stored or it cannot be opened (logged by key ID only). */
  private open(record: ProviderConfigRecord): string | null {
    const { ring, logger } = this.deps;
    if (!record.secret || !ring) return null;
    try {
      return open(ring, record.secret as SealedSecret, aadOf(record.resource_id, record.provider));
    } catch (error) {
      if (!(error instanceof SecretUnavailable)) throw error;
      logger.error({ resourceId: record.resource_id, provider: record.provider, keyId: record.secret.key_id }, error.message);
      return null;
    }
  }
}

/** The secret as stored: a trimmed API key, or the list manager's tokens as canonical JSON. */
function normalizeSecret(provider: ProviderName, text: string): string {
  const value = text.trim();
  if (provider !== 'listmgr') {
    if (!API_KEYS[provider].test(value)) throw invalidProviderSecret(`the ${provider} secret must be the provider's API key`);
    return value;
  }
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    throw invalidProviderSecret('the listmgr secret must be JSON {"access_token": …, "refresh_token": …}');
  }
  const tokens = listmgrTokens.safeParse(json);
  if (!tokens.success) throw invalidProviderSecret(tokens.error.issues[0]?.message ?? 'access_token is required');
  return JSON.stringify(tokens.data);
}

const last4Of = (provider: ProviderName, secret: string): string =>
  (provider === 'listmgr' ? (readListmgrTokens(secret)?.access_token ?? '') : secret).slice(-4);
