import type { ProviderHttp } from '../provider-http/provider-http.js';
import { resultOf, type ProviderResult } from '../provider-http/provider-result.js';

export interface CrmEndpoint {
  /** The API origin: CRM_API_BASE, else the account's own host. */
  origin: string;
  apiKey: string;
}

/** The contact fields a synchronization sends (the provider's names). */
export interface CrmContact {
  email: string;
  firstName: string;
  lastName: string;
  phone: string;
}

/** The provider's largest page of tags. */
export const TAG_PAGE_SIZE = 100;

/**
 * The `crm` adapter: the provider's API v3 (ActiveCampaign) over our provider HTTP client
 * (docs/adr/0160): contact sync (create or update by email), a contact's tags, adding and
 * removing a contact tag, and the account's tags (`tagType`, `subscriber_count`). The key travels
 * in the `Api-Token` header.
 */
export class ActiveCampaignCrm {
  constructor(
    private readonly http: ProviderHttp,
    private readonly endpoint: CrmEndpoint,
  ) {}

  /** POST /api/3/contact/sync: the documented upsert by email, so safe to repeat. */
  syncContact(contact: CrmContact): Promise<ProviderResult> {
    return this.call('POST', '/contact/sync', { contact }, true);
  }

  /** GET /api/3/contacts/{id}/contactTags. */
  contactTags(contactId: string): Promise<ProviderResult> {
    return this.call('GET', `/contacts/${encodeURIComponent(contactId)}/contactTags`, undefined, true);
  }

  /** POST /api/3/contactTags: creates a contact tag; not repeated after a failure without an answer. */
  addContactTag(contactId: string, tagId: string): Promise<ProviderResult> {
    return this.call('POST', '/contactTags', { contactTag: { contact: contactId, tag: tagId } }, false);
  }

  /** DELETE /api/3/contactTags/{id}. */
  removeContactTag(contactTagId: string): Promise<ProviderResult> {
    return this.call('DELETE', `/contactTags/${encodeURIComponent(contactTagId)}`, undefined, true);
  }

  /** GET /api/3/tags, one page from `offset`. */
  tags(offset: number): Promise<ProviderResult> {
    return this.call('GET', `/tags?limit=${TAG_PAGE_SIZE}&offset=${offset}`, undefined, true);
  }

  private async call(method: 'GET' | 'POST' | 'DELETE', path: string, json: unknown, idempotent: boolean): Promise<ProviderResult> {
    const url = `${this.endpoint.origin}/api/3${path}`;
    return resultOf(await this.http.send({ method, url, headers: { 'api-token': this.endpoint.apiKey }, json, idempotent }));
  }
}

/** The provider's error message for a refusal: its `errors[].title`, its `message`, or the status. */
export function crmErrorText(result: Extract<ProviderResult, { ok: false }>): string {
  const errors = result.error['errors'];
  if (Array.isArray(errors)) {
    const titles = errors.map((error) => (error as Record<string, unknown>)?.['title']).filter((title) => typeof title === 'string');
    if (titles.length > 0) return titles.join('; ');
  }
  const message = result.error['message'];
  return typeof message === 'string' ? message : `HTTP ${result.status}`;
}
