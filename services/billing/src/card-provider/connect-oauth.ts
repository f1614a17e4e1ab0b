import Stripe from 'stripe';
import type { BillingConfig } from '../config.js';
import { CardProviderFailure } from './card-provider.js';
import { connectClient } from './client.js';

type ConnectConfig = Pick<BillingConfig, 'CARDPROVIDER_CONNECT_BASE' | 'CARDPROVIDER_TIMEOUT_MS'>;

/** The provider's connect host, where admins authorize and where the OAuth calls go. */
const PROVIDER_CONNECT_BASE = 'https://connect.stripe.com';

/** What the token exchange grants: the connected account, and its tokens (secrets). */
export interface ConnectGrant {
  accountId: string;
  livemode: boolean;
  scope: string;
  /** The connected account's publishable key (not a secret). */
  publishableKey: string;
  /** Secrets: sealed before they are stored, never returned or logged. */
  accessToken: string;
  refreshToken: string;
}

/** The provider refused the authorization code (`invalid_grant`: unknown, expired, used, not ours). */
export class ConnectCodeRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectCodeRejected';
  }
}

/**
 * The provider's connect OAuth (standard accounts), acting with the platform's secret key.
 * Methods throw CardProviderFailure on any failure not named here.
 */
export interface ConnectOAuth {
  /** POST /oauth/token (authorization_code). Throws ConnectCodeRejected for `invalid_grant`. */
  exchange(code: string, idempotencyKey: string): Promise<ConnectGrant>;
  /**
   * POST /oauth/deauthorize. False when the provider says the account is not connected to this
   * client (any more): disconnected from the account's side, or already deauthorized.
   */
  deauthorize(clientId: string, accountId: string, idempotencyKey: string): Promise<boolean>;
}

/**
 * The page an admin opens to connect an account, as `stripe.oauth.authorizeUrl` builds it. Built
 * here because the SDK writes `https://<host>/` and drops a configured port, so it cannot name
 * the local fake.
 */
export function authorizeUrl(config: Pick<BillingConfig, 'CARDPROVIDER_CONNECT_BASE'>, clientId: string, state: string): string {
  const url = new URL('/oauth/authorize', config.CARDPROVIDER_CONNECT_BASE ?? PROVIDER_CONNECT_BASE);
  url.search = new URLSearchParams({ response_type: 'code', client_id: clientId, scope: 'read_write', state }).toString();
  return url.toString();
}

const failure = (operation: string, error: unknown): CardProviderFailure =>
  error instanceof Stripe.errors.StripeError
    ? new CardProviderFailure(`${operation}: ${error.message}`, error.rawType ?? error.code ?? null, error.statusCode ?? null)
    : new CardProviderFailure(`${operation}: ${(error as Error).message}`, null, null);

/** Connect OAuth through the `stripe` SDK's `oauth` resource. */
export class StripeConnectOAuth implements ConnectOAuth {
  private readonly client: Stripe;

  constructor(config: ConnectConfig, secretKey: string) {
    this.client = connectClient(config, secretKey);
  }

  async exchange(code: string, idempotencyKey: string): Promise<ConnectGrant> {
    try {
      const token = await this.client.oauth.token({ grant_type: 'authorization_code', code }, { idempotencyKey });
      if (!token.stripe_user_id) throw new CardProviderFailure('connect token: no account in the answer', null, null);
      return {
        accountId: token.stripe_user_id,
        livemode: token.livemode === true,
        scope: token.scope ?? '',
        publishableKey: token.stripe_publishable_key ?? '',
        accessToken: token.access_token ?? '',
        refreshToken: token.refresh_token ?? '',
      };
    } catch (error) {
      if (error instanceof CardProviderFailure) throw error;
      if (error instanceof Stripe.errors.StripeInvalidGrantError) throw new ConnectCodeRejected(error.message);
      throw failure('connect token', error);
    }
  }

  async deauthorize(clientId: string, accountId: string, idempotencyKey: string): Promise<boolean> {
    try {
      await this.client.oauth.deauthorize({ client_id: clientId, stripe_user_id: accountId }, { idempotencyKey });
      return true;
    } catch (error) {
      // The provider's answer for an account not connected to this client (any more).
      if (error instanceof Stripe.errors.StripeInvalidClientError) return false;
      throw failure('connect deauthorize', error);
    }
  }
}

/** Builds the OAuth adapter for one platform secret key (tests and the service share it). */
export type ConnectOAuthFactory = (secretKey: string) => ConnectOAuth;

export const stripeConnectOAuth =
  (config: ConnectConfig): ConnectOAuthFactory =>
  (secretKey) =>
    new StripeConnectOAuth(config, secretKey);
