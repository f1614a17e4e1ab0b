import type { ServiceError } from '@masthead/core/errors';
import type { EventPublisher } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { ProviderScope } from '@masthead/proto/integrations/provider_scope';
import { currentUser, isInResource, type MemberDirectory } from '../members/member-directory.js';
import type { ProviderConfigService } from '../provider-config/provider-config.service.js';
import type { ProviderHttp } from '../provider-http/provider-http.js';
import { answered, itemsOf, type ProviderResult } from '../provider-http/provider-result.js';
import { text, type Json } from '../support/json.js';
import { isTruthy } from '../support/truthiness.js';
import { ActiveCampaignCrm, crmErrorText, TAG_PAGE_SIZE } from './activecampaign-crm.js';
import { CrmTagReadError, type CrmTagRepository } from './crm-tag.repository.js';
import type { CrmTagRecord } from './crm-tag.schema.js';
import {
  crmImportFailed,
  crmTagNotFound,
  crmTagsNotEnabled,
  crmTagsUnreadable,
  updateTagsFailed,
  updateTagsNotEnabled,
  updateTagsNotInResource,
  userTagsFailed,
  userTagsNotEnabled,
  userTagsNotInResource,
} from './crm.errors.js';

interface Deps {
  configs: ProviderConfigService;
  members: MemberDirectory;
  tags: CrmTagRepository;
  http: ProviderHttp;
  /** CRM_API_BASE: every account's calls go there instead of its own host. */
  apiBase: string | undefined;
  events: EventPublisher;
  logger: Logger;
}

/** The errors of one member operation, in the order document 2 H lists them. */
interface Stage {
  notInResource: () => ServiceError;
  notEnabled: () => ServiceError;
  failed: (description: string) => ServiceError;
}

const READ_STAGE: Stage = { notInResource: userTagsNotInResource, notEnabled: userTagsNotEnabled, failed: userTagsFailed };
const UPDATE_STAGE: Stage = { notInResource: updateTagsNotInResource, notEnabled: updateTagsNotEnabled, failed: updateTagsFailed };

/** The operator import reads at most this many pages of tags. */
const MAX_TAG_PAGES = 50;

/**
 * The `crm` provider operations (document 2 H; docs/adr/0160, 0163): stored tags, and a member's
 * contact and tags at the provider. The member's contact is synchronized (a write) before every
 * tag read or change.
 */
export class CrmService {
  constructor(private readonly deps: Deps) {}

  /** Stored tags with allowed_for_users; no provider call. */
  async tags(scope: ProviderScope): Promise<CrmTagRecord[]> {
    const access = await this.deps.configs.access(scope.resourceId, 'crm');
    if (!access?.settings?.active) throw crmTagsNotEnabled();
    return this.local(() => this.deps.tags.listAllowed(scope.resourceId), crmTagsUnreadable);
  }

  /** The member's provider tags that have a stored tag (allowed_for_users not applied). */
  async userTags(scope: ProviderScope): Promise<CrmTagRecord[]> {
    const { crm, contactId } = await this.contact(scope, READ_STAGE);
    return this.matched(scope.resourceId, await this.contactTagIds(crm, contactId, READ_STAGE), READ_STAGE);
  }

  /**
   * Applies `tags` (stored tag ID → flag): a truthy flag adds the tag, a falsy one removes it;
   * unknown IDs are skipped and omitted tags untouched. The contact is synchronized first even
   * when no key is known. Answers the member's matched tags afterwards.
   */
  async updateUserTags(scope: ProviderScope, tags: Json): Promise<CrmTagRecord[]> {
    const { crm, contactId, userId } = await this.contact(scope, UPDATE_STAGE);
    const ids = Object.keys(tags).filter((key) => /^\d{1,9}$/.test(key));
    const stored = await this.local(
      () => this.deps.tags.findByIds(scope.resourceId, ids.map(Number)),
      () => UPDATE_STAGE.failed('stored CRM tags could not be read'),
    );
    const byId = new Map(stored.map((row) => [String(row._id), row]));
    const current = await this.contactTags(crm, contactId, UPDATE_STAGE);
    for (const [key, flag] of Object.entries(tags)) {
      const row = byId.get(key);
      if (!row) continue;
      const present = current.find((contactTag) => text(contactTag['tag']) === row.tag_id);
      if (isTruthy(flag) && !present) {
        this.check(await answered(crm.addContactTag(contactId, row.tag_id)), UPDATE_STAGE, 'the tag could not be added');
        current.push({ tag: row.tag_id });
      } else if (!isTruthy(flag) && present) {
        const removed = await answered(crm.removeContactTag(text(present['id'])));
        // Already gone at the provider is what a removal wants.
        if (!(removed && !removed.ok && removed.status === 404)) this.check(removed, UPDATE_STAGE, 'the tag could not be removed');
        current.splice(current.indexOf(present), 1);
      }
    }
    const result = this.matched(scope.resourceId, await this.contactTagIds(crm, contactId, UPDATE_STAGE), UPDATE_STAGE);
    try {
      await this.deps.events.publish({
        name: 'user_update_crm_tags',
        resourceId: scope.resourceId,
        payload: { user_id: userId, tags, changes: [] },
      });
    } catch (error) {
      // document 2 H: queue failures can be swallowed; the outbox failed too, so say so.
      this.deps.logger.error({ err: error }, 'user_update_crm_tags not recorded');
    }
    return result;
  }

  /** Operators: copies the account's tags into the resource's stored tags (flags kept). */
  async importTags(resourceId: number): Promise<CrmTagRecord[]> {
    const crm = await this.client(resourceId, crmImportFailed);
    for (let page = 0; page < MAX_TAG_PAGES; page++) {
      const result = await answered(crm.tags(page * TAG_PAGE_SIZE));
      if (!result?.ok) throw crmImportFailed(result ? crmErrorText(result) : 'the provider did not answer');
      const tags = itemsOf(result, 'tags') ?? [];
      for (const tag of tags) {
        await this.deps.tags.upsertFromProvider(resourceId, {
          tag_id: text(tag['id']),
          tag_type: text(tag['tagType']),
          tag: text(tag['tag']),
          description: text(tag['description']),
          subscriber_count: Number.parseInt(text(tag['subscriber_count']), 10) || 0,
        });
      }
      if (tags.length < TAG_PAGE_SIZE) break;
    }
    return this.deps.tags.listAll(resourceId);
  }

  async setTagFlags(resourceId: number, tagId: string, flags: { allowed_for_users: boolean; required: boolean }): Promise<CrmTagRecord> {
    const row = await this.deps.tags.setFlags(resourceId, tagId, flags);
    if (!row) throw crmTagNotFound();
    return row;
  }

  listStoredTags(resourceId: number): Promise<CrmTagRecord[]> {
    return this.deps.tags.listAll(resourceId);
  }

  /** Membership, configuration, then the contact synchronization: the member's provider contact ID. */
  private async contact(scope: ProviderScope, stage: Stage): Promise<{ crm: ActiveCampaignCrm; contactId: string; userId: number }> {
    const member = await this.deps.members.find(currentUser(scope).id, scope.resourceId);
    if (!member || !isInResource(member)) throw stage.notInResource();
    const access = await this.deps.configs.access(scope.resourceId, 'crm');
    if (!access?.settings?.active) throw stage.notEnabled();
    const crm = await this.client(scope.resourceId, stage.failed);
    const user = member.user;
    const synced = await answered(
      crm.syncContact({ email: user.email, firstName: user.firstName ?? '', lastName: user.lastName ?? '', phone: user.phone ?? '' }),
    );
    this.check(synced, stage, 'the contact could not be created or updated');
    const contact = synced?.ok ? synced.body['contact'] : undefined;
    const contactId = text((contact as Json | undefined)?.['id']);
    if (!contactId) throw stage.failed('the contact could not be created or updated: no contact ID');
    return { crm, contactId, userId: user.id };
  }

  /** The provider client; `failed` when the key or the account name is empty (document 2 H: 409). */
  private async client(resourceId: number, failed: (description: string) => ServiceError): Promise<ActiveCampaignCrm> {
    const access = await this.deps.configs.access(resourceId, 'crm');
    const account = access?.settings?.account_name ?? '';
    if (!access?.secret || !account) throw failed('the crm key or account name is empty');
    const origin = this.deps.apiBase ?? `https://${account}.api-us1.com`;
    return new ActiveCampaignCrm(this.deps.http, { origin, apiKey: access.secret });
  }

  private async contactTags(crm: ActiveCampaignCrm, contactId: string, stage: Stage): Promise<Json[]> {
    const result = await answered(crm.contactTags(contactId));
    this.check(result, stage, 'the contact tags could not be read');
    return itemsOf(result!, 'contactTags') ?? [];
  }

  private async contactTagIds(crm: ActiveCampaignCrm, contactId: string, stage: Stage): Promise<string[]> {
    return (await this.contactTags(crm, contactId, stage)).map((contactTag) => text(contactTag['tag']));
  }

  private matched(resourceId: number, tagIds: string[], stage: Stage): Promise<CrmTagRecord[]> {
    return this.local(
      () => this.deps.tags.findByTagIds(resourceId, [...new Set(tagIds)]),
      () => stage.failed('stored CRM tags could not be matched'),
    );
  }

  /** A local read whose malformed rows are the operation's lookup failure. */
  private async local<T>(read: () => Promise<T>, failed: () => ServiceError): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof CrmTagReadError) {
        this.deps.logger.error({ err: error }, 'stored CRM tags unreadable');
        throw failed();
      }
      throw error;
    }
  }

  /** Throws the stage's 409 for a refusal (with the provider's message) or no answer. */
  private check(result: ProviderResult | undefined, stage: Stage, what: string): asserts result is ProviderResult & { ok: true } {
    if (!result) throw stage.failed(`${what}: the crm provider did not answer`);
    if (!result.ok) throw stage.failed(`${what}: ${crmErrorText(result)}`);
  }
}
