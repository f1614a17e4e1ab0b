import type { ProviderHttp } from '../provider-http/provider-http.js';
import { resultOf, type ProviderResult } from '../provider-http/provider-result.js';
import type { ListmgrTokens } from '../provider-config/provider-settings.js';

/** The provider's error code for an access token past its lifetime. */
const EXPIRED_TOKEN = 121;

export interface ListmgrEndpoint {
  /** The API origin: LISTMGR_API_BASE, else the provider's own. */
  origin: string;
  tokens: ListmgrTokens;
  /**
   * Called once when the provider answers that the access token expired: the tokens to retry
   * with (refreshed, or renewed meanwhile by another call), or null when none can be had.
   */
  renew: (expired: ListmgrTokens) => Promise<ListmgrTokens | null>;
}

/** What the subscriber-add call sends (the provider's field names, docs/adr/0160). */
export interface SubscriberInput {
  EmailAddress: string;
  Name: string;
  CustomFields: Array<{ Key: string; Value: string }>;
  Resubscribe: boolean;
  RestartSubscriptionBasedAutoresponders: boolean;
  ConsentToTrack: 'Yes' | 'No' | 'Unchanged';
}

/**
 * The `listmgr` adapter: the provider's API v3.3 (Campaign Monitor) over our provider HTTP
 * client with an OAuth bearer token (docs/adr/0160): a subscriber's details in a list (its
 * `State`), adding or updating a subscriber, unsubscribing. An expired token is refreshed
 * through the provider's token endpoint once per call.
 */
export class CampaignMonitorLists {
  private tokens: ListmgrTokens;

  constructor(
    private readonly http: ProviderHttp,
    private readonly endpoint: ListmgrEndpoint,
  ) {
    this.tokens = endpoint.tokens;
  }

  /** GET /api/v3.3/subscribers/{listid}.json?email=…: the subscriber's details and State. */
  subscriber(listId: string, email: string): Promise<ProviderResult> {
    const query = new URLSearchParams({ email, includetrackingpreference: 'true' });
    return this.call('GET', `/subscribers/${encodeURIComponent(listId)}.json?${query.toString()}`, undefined, true);
  }

  /**
   * POST /api/v3.3/subscribers/{listid}.json: adds, or updates and (with Resubscribe) reactivates.
   * Not repeated after a failure without an answer: a resubscribe can restart autoresponders.
   */
  addSubscriber(listId: string, input: SubscriberInput): Promise<ProviderResult> {
    return this.call('POST', `/subscribers/${encodeURIComponent(listId)}.json`, input, false);
  }

  /** POST /api/v3.3/subscribers/{listid}/unsubscribe.json: unsubscribing twice is one state. */
  unsubscribe(listId: string, email: string): Promise<ProviderResult> {
    return this.call('POST', `/subscribers/${encodeURIComponent(listId)}/unsubscribe.json`, { EmailAddress: email }, true);
  }

  /**
   * POST /oauth/token with the refresh token: new tokens, or null when the provider refuses.
   * Never repeated: a refresh token may be spent by a request whose answer was lost.
   */
  async refresh(refreshToken: string): Promise<ListmgrTokens | null> {
    const response = await this.http.send({
      method: 'POST',
      url: `${this.endpoint.origin}/oauth/token`,
      headers: {},
      form: { grant_type: 'refresh_token', refresh_token: refreshToken },
      idempotent: false,
    });
    const result = resultOf(response);
    const access = result.ok ? result.body['access_token'] : undefined;
    if (typeof access !== 'string' || !access) return null;
    const next = result.ok ? result.body['refresh_token'] : undefined;
    return { access_token: access, refresh_token: typeof next === 'string' && next ? next : refreshToken };
  }

  private async call(method: 'GET' | 'POST', path: string, json: unknown, idempotent: boolean): Promise<ProviderResult> {
    const send = async () =>
      resultOf(
        await this.http.send({
          method,
          url: `${this.endpoint.origin}/api/v3.3${path}`,
          headers: { authorization: `Bearer ${this.tokens.access_token}` },
          json,
          idempotent,
        }),
      );
    const result = await send();
    if (result.ok || result.status !== 401 || result.error['Code'] !== EXPIRED_TOKEN) return result;
    const renewed = await this.endpoint.renew(this.tokens);
    if (!renewed) return result;
    this.tokens = renewed;
    return send();
  }
}

/** The provider's refusal as text: its `Message` and `Code`. */
export function listErrorText(error: Record<string, unknown>, status: number): string {
  const message = typeof error['Message'] === 'string' ? error['Message'] : `HTTP ${status}`;
  return error['Code'] === undefined ? message : `${message} (code ${String(error['Code'])})`;
}
