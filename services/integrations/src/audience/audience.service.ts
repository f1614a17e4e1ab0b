import type { DomainEvents, EventPublisher } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type {
  AddTagsResult,
  Category,
  Interest,
  InterestFlag,
  MemberResult,
  MergeFieldValue,
  SyncChoice,
} from '@masthead/proto/integrations/audience';
import type { ProviderScope } from '@masthead/proto/integrations/provider_scope';
import { currentUser, type MemberDirectory } from '../members/member-directory.js';
import type { AudienceSettings } from '../provider-config/provider-settings.js';
import { integrationError } from '../provider-config/provider-config.errors.js';
import type { ProviderConfigService } from '../provider-config/provider-config.service.js';
import type { ProviderHttp } from '../provider-http/provider-http.js';
import { answered, itemsOf, type ProviderResult } from '../provider-http/provider-result.js';
import { asObject, text, type Json } from '../support/json.js';
import { mapLimit } from '../support/map-limit.js';
import { isEmptyValue, isTruthy } from '../support/truthiness.js';
import { fallbackInterestName, normalizeInterestName } from './interest-names.js';
import { MailchimpAudience } from './mailchimp-audience.js';

interface Deps {
  configs: ProviderConfigService;
  members: MemberDirectory;
  http: ProviderHttp;
  /** AUDIENCE_API_BASE: every resource's calls go there instead of its data center. */
  apiBase: string | undefined;
  events: EventPublisher;
  logger: Logger;
}

/** Interest reads of several categories at once, below the provider's 10 simultaneous connections. */
const CATEGORY_CONCURRENCY = 4;

const toInterest = (fields: Json): Interest => ({ id: text(fields['id']), name: normalizeInterestName(fields['name']), fields });

/**
 * The `audience` provider operations (document 2 H; docs/adr/0160-0163). Reads answer empty
 * collections when the provider fails; member writes answer the provider's record, its error
 * object (the documented 200 with an error), or nothing when it did not answer.
 */
export class AudienceService {
  constructor(private readonly deps: Deps) {}

  /** The configured category's interests (exact title match), one page each. */
  async interests(scope: ProviderScope): Promise<Interest[]> {
    const { client, settings } = await this.provider(scope.resourceId);
    return (await this.catalog(client, settings.interest_category)) ?? [];
  }

  /** Every category with its interests; categories without interests are left out. */
  async categories(scope: ProviderScope): Promise<Category[]> {
    const { client } = await this.provider(scope.resourceId);
    const categories = itemsOf(await this.quiet(client.categories()), 'categories') ?? [];
    const groups = await mapLimit(categories, CATEGORY_CONCURRENCY, async (fields) => {
      const id = text(fields['id']);
      const interests = itemsOf(await this.quiet(client.interests(id)), 'interests') ?? [];
      return { id, fields, interests: interests.map(toInterest) };
    });
    return groups.filter((group) => group.interests.length > 0);
  }

  /**
   * Adds or updates the target subscribed, with the merge fields that are not empty (so they
   * never clear a value) and the interests when some were sent (false included).
   */
  async subscribe(scope: ProviderScope, userId: number | undefined, mergeFields: Json, interests: Json): Promise<MemberResult> {
    const target = await this.deps.members.audienceTarget(scope, userId);
    const provider = await this.provider(scope.resourceId);
    const body: Json = { status_if_new: 'subscribed', status: 'subscribed' };
    const merges = Object.fromEntries(Object.entries(mergeFields).filter(([, value]) => !isEmptyValue(value)));
    if (Object.keys(merges).length > 0) body['merge_fields'] = merges;
    if (Object.keys(interests).length > 0) {
      body['interests'] = Object.fromEntries(Object.entries(interests).map(([id, value]) => [id, isTruthy(value)]));
    }
    return this.writeMember(provider, target.user, body, 'subscribe');
  }

  /** The target's record, read by writing it subscribed: the documented resubscribe. */
  async subscriberInfo(scope: ProviderScope, userId: number | undefined): Promise<MemberResult> {
    const target = await this.deps.members.audienceTarget(scope, userId);
    const provider = await this.provider(scope.resourceId);
    const body = { status_if_new: 'subscribed', status: 'subscribed' };
    return this.writeMember(provider, target.user, body, 'subscriber_info');
  }

  async unsubscribe(scope: ProviderScope, userId: number | undefined): Promise<MemberResult> {
    const target = await this.deps.members.audienceTarget(scope, userId);
    const provider = await this.provider(scope.resourceId);
    const body = { status_if_new: 'unsubscribed', status: 'unsubscribed' };
    return this.writeMember(provider, target.user, body, 'unsubscribe');
  }

  /** Adds active tags to the current member (never another user). */
  async addTags(scope: ProviderScope, names: string[]): Promise<AddTagsResult> {
    const user = currentUser(scope);
    const { client } = await this.provider(scope.resourceId);
    const result = await answered(
      client.setTags(
        user.email,
        names.map((name) => ({ name, status: 'active' as const })),
      ),
    );
    if (!result) return { result: false };
    if (!result.ok) return { result: false, providerError: result.error };
    await this.publish(scope.resourceId, { user_id: user.id, action: 'add_tags', status: null, tags: names });
    return { result: true };
  }

  /** The configured category's interests with the current member's flags (false when not a member). */
  async memberInterests(scope: ProviderScope): Promise<InterestFlag[]> {
    const user = currentUser(scope);
    const { client, settings } = await this.provider(scope.resourceId);
    const catalog = await this.catalog(client, settings.interest_category);
    if (!catalog) return [];
    const member = await this.quiet(client.member(user.email));
    if (!member.ok && member.status !== 404) return [];
    const flags = member.ok ? asObject(member.body['interests']) : {};
    return catalog.map((interest) => ({ id: interest.id, name: interest.name, subscribed: flags[interest.id] === true }));
  }

  /** The list's merge fields, one page. */
  async syncChoices(scope: ProviderScope): Promise<SyncChoice[]> {
    const { client } = await this.provider(scope.resourceId);
    const fields = itemsOf(await this.quiet(client.mergeFields()), 'merge_fields') ?? [];
    return fields.map((field) => ({
      key: text(field['tag']),
      name: text(field['name']),
      type: text(field['type']),
      required: field['required'] === true,
    }));
  }

  /**
   * One member write, shaped for the wire: interests as `{id, name, subscribed}` named from the
   * configured category (else `Newsletter <id>`), merge fields as `{key, name, value}` named from
   * the list's merge fields.
   */
  private async writeMember(
    { client, settings, resourceId }: Provider,
    user: { id: number; email: string },
    body: Json,
    action: 'subscribe' | 'subscriber_info' | 'unsubscribe',
  ): Promise<MemberResult> {
    const userId = user.id;
    const result = await answered(client.putMember(user.email, body));
    if (!result) return { userId, interests: [], mergeFields: [] };
    if (!result.ok) return { userId, providerError: result.error, interests: [], mergeFields: [] };
    const member = result.body;
    await this.publish(resourceId, {
      user_id: userId,
      action,
      status: typeof member['status'] === 'string' ? member['status'] : null,
      tags: [],
    });
    const [catalog, mergeCatalog] = await Promise.all([
      this.catalog(client, settings.interest_category),
      this.quiet(client.mergeFields()).then((fields) => itemsOf(fields, 'merge_fields') ?? []),
    ]);
    const known = new Map((catalog ?? []).map((interest, index) => [interest.id, { name: interest.name, index }]));
    const mergeNames = new Map(mergeCatalog.map((field) => [text(field['tag']), text(field['name'])]));
    // The configured category's interests first, in its order, then the others. Not the order of
    // the provider's object: parsing it puts integer-like keys (an ID of ten digits) first.
    const rank = (id: string) => known.get(id)?.index ?? known.size;
    const interests: InterestFlag[] = Object.entries(asObject(member['interests']))
      .map(([id, flag]) => ({ id, name: known.get(id)?.name ?? fallbackInterestName(id), subscribed: flag === true }))
      .sort((a, b) => rank(a.id) - rank(b.id));
    const mergeFields: MergeFieldValue[] = Object.entries(asObject(member['merge_fields'])).map(([key, value]) => ({
      key,
      name: mergeNames.get(key),
      value,
    }));
    return { userId, member, interests, mergeFields };
  }

  /** The interests of the category titled exactly `title`; undefined when the provider failed. */
  private async catalog(client: MailchimpAudience, title: string): Promise<Interest[] | undefined> {
    const categories = itemsOf(await this.quiet(client.categories()), 'categories');
    if (!categories) return undefined;
    const category = categories.find((candidate) => candidate['title'] === title);
    if (!category) return [];
    const interests = itemsOf(await this.quiet(client.interests(text(category['id']))), 'interests');
    return interests?.map(toInterest);
  }

  /** The provider client of the resource; 500 integration_error without a key, list or data center. */
  private async provider(resourceId: number): Promise<Provider> {
    const access = await this.deps.configs.access(resourceId, 'audience');
    const settings = access?.settings;
    const apiKey = access?.secret;
    if (!settings || !apiKey) throw integrationError('audience');
    const server = settings.server || apiKey.split('-')[1] || '';
    if (!this.deps.apiBase && !server) throw integrationError('audience');
    const origin = this.deps.apiBase ?? `https://${server}.api.mailchimp.com`;
    return { client: new MailchimpAudience(this.deps.http, { origin, apiKey, listId: settings.list_id }), settings, resourceId };
  }

  /** A read whose failure to answer counts as a provider error (reads answer empty then). */
  private async quiet(call: Promise<ProviderResult>): Promise<ProviderResult> {
    return (await answered(call)) ?? { ok: false, status: 0, error: {} };
  }

  private async publish(resourceId: number, payload: DomainEvents['audience_member_changed']): Promise<void> {
    try {
      await this.deps.events.publish({ name: 'audience_member_changed', resourceId, payload });
    } catch (error) {
      this.deps.logger.error({ err: error }, 'audience_member_changed not recorded');
    }
  }
}

interface Provider {
  client: MailchimpAudience;
  settings: AudienceSettings;
  resourceId: number;
}
