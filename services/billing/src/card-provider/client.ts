import Stripe from 'stripe';
import type { BillingConfig } from '../config.js';

/**
 * The `stripe` SDK's options for this deployment: its own API by default, or the server named by
 * CARDPROVIDER_API_BASE (a local fake in tests and `npm start`, docs/adr/0110), with the call
 * deadline of CARDPROVIDER_TIMEOUT_MS. Telemetry is off: it would report our latencies to the
 * provider in request headers. No SDK network retries (docs/adr/0142): one attempt fits the
 * request's budget (the SDK's default of two more would outlast GRPC_DEADLINE_MS), and a write is
 * retried only through the provider-write ledger, which first looks for what an earlier attempt
 * wrote (the local fake ignores Idempotency-Key, so an SDK retry of a charge is a second charge).
 */
export function cardProviderClientOptions(
  config: Pick<BillingConfig, 'CARDPROVIDER_API_BASE' | 'CARDPROVIDER_TIMEOUT_MS'>,
): Stripe.StripeConfig {
  return clientOptionsFor(config.CARDPROVIDER_API_BASE, config.CARDPROVIDER_TIMEOUT_MS);
}

/**
 * The SDK's options for one base: the SDK's `host` replaces every base it knows (the API and the
 * connect host alike), so the OAuth client gets its own instance (connect-oauth.ts).
 */
function clientOptionsFor(base: string | undefined, timeout: number): Stripe.StripeConfig {
  const options: Stripe.StripeConfig = { telemetry: false, timeout, maxNetworkRetries: 0 };
  if (!base) return options;
  const url = new URL(base);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  // An IPv6 literal arrives bracketed ([::1]); the SDK passes host on to node:http unbracketed.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { ...options, host, port: Number(url.port) || (protocol === 'http' ? 80 : 443), protocol };
}

/** A provider client acting with `secretKey` (a resource's key for its mode; never logged). */
export const cardProviderClient = (config: Parameters<typeof cardProviderClientOptions>[0], secretKey: string): Stripe =>
  new Stripe(secretKey, cardProviderClientOptions(config));

/**
 * A provider client for the connect (OAuth) endpoints, acting with the platform's `secretKey`:
 * `stripe.oauth` targets the provider's connect host by default, or CARDPROVIDER_CONNECT_BASE
 * (the local fake in tests, docs/adr/0126).
 */
export const connectClient = (
  config: Pick<BillingConfig, 'CARDPROVIDER_CONNECT_BASE' | 'CARDPROVIDER_TIMEOUT_MS'>,
  secretKey: string,
): Stripe => new Stripe(secretKey, clientOptionsFor(config.CARDPROVIDER_CONNECT_BASE, config.CARDPROVIDER_TIMEOUT_MS));
