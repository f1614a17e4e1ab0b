import type { Resource } from '@masthead/proto/accounts';
import { serviceNotActive } from './idp.errors.js';

/** A resource's provider configuration, from its settings (ADR 0050). Public values only. */
export interface ProviderSettings {
  projectId: string;
  /** The provider's web API key: public (it ships in every web page), it only names the project. */
  apiKey: string;
  /** The whole public web configuration, as GET /resource shows it. */
  webAppConfig: Record<string, unknown>;
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** The resource's provider settings, or null when `idp_auth` is not true or the configuration is incomplete. */
export function providerSettingsOf(resource: Resource): ProviderSettings | null {
  const settings = resource.settings ?? {};
  const config: unknown = settings['idp_web_app_config'];
  if (settings['idp_auth'] !== true || config === null || typeof config !== 'object' || Array.isArray(config)) return null;
  const webAppConfig = config as Record<string, unknown>;
  const projectId = text(webAppConfig['projectId']);
  const apiKey = text(webAppConfig['apiKey']);
  return projectId && apiKey ? { projectId, apiKey, webAppConfig } : null;
}

/** Thrown by every provider operation of a resource without an enabled provider (document 1, A). */
export function requireProviderSettings(resource: Resource): ProviderSettings {
  const settings = providerSettingsOf(resource);
  if (!settings) throw serviceNotActive();
  return settings;
}
