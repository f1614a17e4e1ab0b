import type { ProviderMode } from '../connections/connection.schema.js';

/** The card provider's label (document 1: neutral word for the provider). */
export const CARDPROVIDER = 'cardprovider';

/**
 * The resource settings billing reads, from the settings the gateway passes along
 * (MemberScope.resource_settings), with document 1's defaults.
 */
export interface BillingSettings {
  /** `payments_in_live_mode`, default true (document 1, Resource configuration). */
  mode: ProviderMode;
  /** `default_paysystem`, falling back to `cardprovider` (document 1 D). */
  defaultPaySystem: string;
  /** `auto_attach_customer_to_resource`, default true (document 1 D, legacy creation). */
  autoAttach: boolean;
}

export function billingSettings(settings: Record<string, unknown> | undefined): BillingSettings {
  const live = settings?.['payments_in_live_mode'];
  const paySystem = settings?.['default_paysystem'];
  const autoAttach = settings?.['auto_attach_customer_to_resource'];
  return {
    mode: live === false ? 'test' : 'live',
    defaultPaySystem: typeof paySystem === 'string' && paySystem.trim() !== '' ? paySystem.trim() : CARDPROVIDER,
    autoAttach: autoAttach !== false,
  };
}
