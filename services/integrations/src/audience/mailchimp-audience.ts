import { createHash } from 'node:crypto';
import type { ProviderHttp } from '../provider-http/provider-http.js';
import { resultOf, type ProviderResult } from '../provider-http/provider-result.js';

/** One page of the provider's collections: the spec's limit of 50 records per request. */
export const PAGE_SIZE = 50;

export interface AudienceEndpoint {
  /** The API origin: AUDIENCE_API_BASE, else the data center's own host. */
  origin: string;
  apiKey: string;
  listId: string;
}

/** The provider's member key: the MD5 of the lowercased email (its documented subscriber hash). */
export const subscriberHash = (email: string): string => createHash('md5').update(email.toLowerCase()).digest('hex');

/**
 * The `audience` adapter: the provider's Marketing API v3 (Mailchimp) over our provider HTTP
 * client, one list. Calls and field names follow the provider's reference (docs/adr/0160):
 * interest categories and interests of a list, merge fields, list members (PUT is the
 * documented add-or-update, keyed by the subscriber hash) and member tags.
 */
export class MailchimpAudience {
  private readonly authorization: string;

  constructor(
    private readonly http: ProviderHttp,
    private readonly endpoint: AudienceEndpoint,
  ) {
    // HTTP Basic with any user name and the API key as the password.
    this.authorization = `Basic ${Buffer.from(`masthead:${endpoint.apiKey}`).toString('base64')}`;
  }

  /** GET /lists/{list_id}/interest-categories, one page. */
  categories(): Promise<ProviderResult> {
    return this.get(`/interest-categories?count=${PAGE_SIZE}`);
  }

  /** GET /lists/{list_id}/interest-categories/{interest_category_id}/interests, one page. */
  interests(categoryId: string): Promise<ProviderResult> {
    return this.get(`/interest-categories/${encodeURIComponent(categoryId)}/interests?count=${PAGE_SIZE}`);
  }

  /** GET /lists/{list_id}/merge-fields, one page. */
  mergeFields(): Promise<ProviderResult> {
    return this.get(`/merge-fields?count=${PAGE_SIZE}`);
  }

  /** GET /lists/{list_id}/members/{subscriber_hash}. */
  member(email: string): Promise<ProviderResult> {
    return this.get(`/members/${subscriberHash(email)}`);
  }

  /** PUT /lists/{list_id}/members/{subscriber_hash}: add or update; the same body twice is one state. */
  putMember(email: string, body: Record<string, unknown>): Promise<ProviderResult> {
    return this.call('PUT', `/members/${subscriberHash(email)}`, { email_address: email, ...body }, true);
  }

  /** POST /lists/{list_id}/members/{subscriber_hash}/tags: sets each tag's status (active twice is active). */
  setTags(email: string, tags: Array<{ name: string; status: 'active' | 'inactive' }>): Promise<ProviderResult> {
    return this.call('POST', `/members/${subscriberHash(email)}/tags`, { tags }, true);
  }

  private get(path: string): Promise<ProviderResult> {
    return this.call('GET', path, undefined, true);
  }

  private async call(method: 'GET' | 'PUT' | 'POST', path: string, json: unknown, idempotent: boolean): Promise<ProviderResult> {
    const url = `${this.endpoint.origin}/3.0/lists/${encodeURIComponent(this.endpoint.listId)}${path}`;
    return resultOf(await this.http.send({ method, url, headers: { authorization: this.authorization }, json, idempotent }));
  }
}
