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
  /** `default_autorenewal_subscription`, default true: a bought membership renews (docs/adr/0142). */
  defaultAutorenew: boolean;
  /** `delay_downgrade`: an external downgrade or refund waits for the membership's end (docs/adr/0146). */
  delayDowngrade: boolean;
  /** `default_subscription_id`: the Pricing a member falls back to after a downgrade; 0 for none. */
  defaultPricingId: number;
}

const positiveInteger = (value: unknown): number => {
  const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof number === 'number' && Number.isSafeInteger(number) && number > 0 ? number : 0;
};

export function billingSettings(settings: Record<string, unknown> | undefined): BillingSettings {
  const live = settings?.['payments_in_live_mode'];
  const paySystem = settings?.['default_paysystem'];
  const autoAttach = settings?.['auto_attach_customer_to_resource'];
  return {
    mode: live === false ? 'test' : 'live',
    defaultPaySystem: typeof paySystem === 'string' && paySystem.trim() !== '' ? paySystem.trim() : CARDPROVIDER,
    autoAttach: autoAttach !== false,
    defaultAutorenew: settings?.['default_autorenewal_subscription'] !== false,
    delayDowngrade: settings?.['delay_downgrade'] === true,
    defaultPricingId: positiveInteger(settings?.['default_subscription_id']),
  };
}
