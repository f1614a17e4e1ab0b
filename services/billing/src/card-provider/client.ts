import Stripe from 'stripe';
import type { BillingConfig } from '../config.js';

/**
 * The `stripe` SDK's options for this deployment: its own API by default, or the server named by
 * CARDPROVIDER_API_BASE (a local fake in tests and `npm start`, docs/adr/0110), with the call
 * deadline of CARDPROVIDER_TIMEOUT_MS. Telemetry is off: it would report our latencies to the
 * provider in request headers.
 */
export function cardProviderClientOptions(
  config: Pick<BillingConfig, 'CARDPROVIDER_API_BASE' | 'CARDPROVIDER_TIMEOUT_MS'>,
): Stripe.StripeConfig {
  const options: Stripe.StripeConfig = { telemetry: false, timeout: config.CARDPROVIDER_TIMEOUT_MS };
  if (!config.CARDPROVIDER_API_BASE) return options;
  const url = new URL(config.CARDPROVIDER_API_BASE);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  // An IPv6 literal arrives bracketed ([::1]); the SDK passes host on to node:http unbracketed.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { ...options, host, port: Number(url.port) || (protocol === 'http' ? 80 : 443), protocol };
}

/** A provider client acting with `secretKey` (a resource's key for its mode; never logged). */
export const cardProviderClient = (config: Parameters<typeof cardProviderClientOptions>[0], secretKey: string): Stripe =>
  new Stripe(secretKey, cardProviderClientOptions(config));
