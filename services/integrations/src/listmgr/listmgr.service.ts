import type { ServiceError } from '@masthead/core/errors';
import { currentCall } from '@masthead/core/grpc';
import type { EventPublisher } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { User } from '@masthead/proto/identity';
import type { ProviderScope } from '@masthead/proto/integrations/provider_scope';
import type { MemberDirectory } from '../members/member-directory.js';
import { integrationError } from '../provider-config/provider-config.errors.js';
import type { ProviderConfigService } from '../provider-config/provider-config.service.js';
import { readListmgrTokens, type ListmgrSettings, type ListmgrTokens } from '../provider-config/provider-settings.js';
import type { ProviderHttp } from '../provider-http/provider-http.js';
import { answered } from '../provider-http/provider-result.js';
import { text } from '../support/json.js';
import { CampaignMonitorLists, listErrorText } from './campaign-monitor-lists.js';
import type { ListFields, ListRepository, ListStateCache } from './list.repository.js';
import type { ListRecord } from './list.schema.js';
import { listNotFound, listProviderRefused, listProviderUnavailable, listValueTooLong } from './listmgr.errors.js';

/** The provider's limit on one custom field value (document 2 H Limits). */
export const MAX_FIELD_VALUE = 250;

/** A list's failure in a change, as its row carries it (document 2 H). */
export interface ListFailure {
  error: string;
  error_description: string;
  req_guid: string;
}

export interface ListState {
  list: ListRecord;
  /** The provider's State; '' after a provider error. */
  state: string;
  error?: ListFailure;
}

interface Deps {
  configs: ProviderConfigService;
  members: MemberDirectory;
  lists: ListRepository;
  cache: ListStateCache;
  http: ProviderHttp;
  /** LISTMGR_API_BASE, else the provider's own API. */
  apiBase: string | undefined;
  events: EventPublisher;
  logger: Logger;
}

interface Provider {
  client: CampaignMonitorLists;
  settings: ListmgrSettings;
}

const isSelectable = (list: ListRecord) => list.show_list || list.require_list || list.allowed_list;

/**
 * The `listmgr` provider operations (document 2 H; docs/adr/0160-0162): stored lists, and a
 * member's state in each at the provider. Changes run one list after another, then every shown
 * list is read again (bypassing the state cache, which the reread refreshes).
 */
export class ListmgrService {
  /** Refreshes in flight per resource, so that concurrent calls spend one refresh token. */
  private readonly renewals = new Map<number, Promise<ListmgrTokens | null>>();

  constructor(private readonly deps: Deps) {}

  /** Stored lists with show_list, by list_name; no provider call. */
  async getLists(resourceId: number): Promise<ListRecord[]> {
    await this.provider(resourceId);
    return (await this.deps.lists.listAll(resourceId)).filter((list) => list.show_list);
  }

  async interests(scope: ProviderScope, userId: number | undefined): Promise<ListState[]> {
    const target = await this.deps.members.listmgrTarget(scope, userId);
    const provider = await this.provider(scope.resourceId);
    const lists = this.visible(await this.deps.lists.listAll(scope.resourceId), target.elevated);
    return this.reread(scope.resourceId, provider, target.user.email, lists, new Map());
  }

  subscribe(scope: ProviderScope, userId: number | undefined, listIds: string[]): Promise<ListState[]> {
    return this.change(scope, userId, listIds, 'subscribe');
  }

  unsubscribe(scope: ProviderScope, userId: number | undefined, listIds: string[]): Promise<ListState[]> {
    return this.change(scope, userId, listIds, 'unsubscribe');
  }

  /* Operators. */

  async upsertList(resourceId: number, fields: ListFields): Promise<ListRecord> {
    return this.deps.lists.upsert(resourceId, fields);
  }

  async removeList(resourceId: number, listId: string): Promise<ListRecord> {
    const removed = await this.deps.lists.remove(resourceId, listId);
    if (!removed) throw listNotFound();
    return removed;
  }

  listStoredLists(resourceId: number): Promise<ListRecord[]> {
    return this.deps.lists.listAll(resourceId);
  }

  cachedStates(resourceId: number, email: string) {
    return this.deps.cache.read(resourceId, email);
  }

  /**
   * Each requested list that is selectable (show, require or allowed), in request order and
   * duplicates included, then the forced reread. A list's failure is caught and reported on its
   * row; the others go on. Lists not asked for are untouched.
   */
  private async change(
    scope: ProviderScope,
    userId: number | undefined,
    listIds: string[],
    action: 'subscribe' | 'unsubscribe',
  ): Promise<ListState[]> {
    const target = await this.deps.members.listmgrTarget(scope, userId);
    const provider = await this.provider(scope.resourceId);
    const all = await this.deps.lists.listAll(scope.resourceId);
    const failures = new Map<string, ListFailure>();
    const touched = new Set<number>();
    for (const listId of listIds) {
      const list = all.find((candidate) => candidate.list_id === listId && isSelectable(candidate));
      if (!list) continue;
      touched.add(list._id);
      const failure = await this.mutate(provider, list, target.user, action);
      if (failure) failures.set(list.list_id, failure);
      else failures.delete(list.list_id);
    }
    // Shown lists, and any list changed here, so that no failure goes unreported.
    const rows = this.visible(all, target.elevated);
    const lists = [...rows, ...all.filter((list) => touched.has(list._id) && !rows.includes(list))];
    const states = await this.reread(scope.resourceId, provider, target.user.email, lists, failures);
    try {
      await this.deps.events.publish({
        name: 'listmgr_subscriptions_changed',
        resourceId: scope.resourceId,
        payload: {
          user_id: target.user.id,
          action,
          lists: states
            .filter((row) => touched.has(row.list._id))
            .map((row) => ({ list_id: row.list.list_id, state: row.state, error: row.error?.error ?? null })),
        },
      });
    } catch (error) {
      this.deps.logger.error({ err: error }, 'listmgr_subscriptions_changed not recorded');
    }
    return states;
  }

  /** One list's change; its failure, or undefined when the provider accepted it. */
  private async mutate(
    { client, settings }: Provider,
    list: ListRecord,
    user: User,
    action: 'subscribe' | 'unsubscribe',
  ): Promise<ListFailure | undefined> {
    const requestId = currentCall()?.requestId ?? '';
    const failure = (error: ServiceError): ListFailure => ({
      error: error.code,
      error_description: error.description,
      req_guid: requestId,
    });
    let call;
    if (action === 'unsubscribe') {
      call = client.unsubscribe(list.list_id, user.email);
    } else {
      const fields = settings.custom_fields.map(({ key, source }) => ({ Key: key, Value: memberValue(user, source) }));
      const tooLong = fields.find((field) => field.Value.length > MAX_FIELD_VALUE);
      if (tooLong) return failure(listValueTooLong(tooLong.Key));
      call = client.addSubscriber(list.list_id, {
        EmailAddress: user.email,
        Name: [user.firstName, user.lastName].filter(Boolean).join(' '),
        CustomFields: fields,
        Resubscribe: true,
        RestartSubscriptionBasedAutoresponders: true,
        ConsentToTrack: settings.consent_to_track,
      });
    }
    const result = await answered(call);
    if (!result) return failure(listProviderUnavailable());
    if (!result.ok) return failure(listProviderRefused(listErrorText(result.error, result.status)));
    return undefined;
  }

  /** Reads each list's State (an error leaves it blank), writes the email's cache entry. */
  private async reread(
    resourceId: number,
    { client }: Provider,
    email: string,
    lists: ListRecord[],
    failures: Map<string, ListFailure>,
  ): Promise<ListState[]> {
    const states: ListState[] = [];
    for (const list of lists) {
      const result = await answered(client.subscriber(list.list_id, email));
      const state = result?.ok ? text(result.body['State']) : '';
      const error = failures.get(list.list_id);
      states.push(error ? { list, state, error } : { list, state });
    }
    await this.deps.cache.write(
      resourceId,
      email,
      states.map(({ list, state }) => ({ list_id: list.list_id, state })),
    );
    return states;
  }

  /** The member sees lists with show_list; an eligible caller acting for a user also sees the required and allowed ones. */
  private visible(lists: ListRecord[], elevated: boolean): ListRecord[] {
    return lists.filter((list) => list.show_list === true || (elevated && isSelectable(list)));
  }

  /** The provider client of the resource; 500 integration_error without OAuth tokens. */
  private async provider(resourceId: number): Promise<Provider> {
    const access = await this.deps.configs.access(resourceId, 'listmgr');
    const tokens = readListmgrTokens(access?.secret);
    if (!access || !tokens) throw integrationError('listmgr');
    const settings = access.settings ?? { client_id: '', custom_fields: [], consent_to_track: 'Unchanged' as const };
    const origin = this.deps.apiBase ?? 'https://api.createsend.com';
    const client: CampaignMonitorLists = new CampaignMonitorLists(this.deps.http, {
      origin,
      tokens,
      renew: (expired) => this.renew(resourceId, expired, client),
    });
    return { client, settings };
  }

  /**
   * New tokens after the provider said the access token expired: the stored ones when another
   * call renewed them meanwhile, else a refresh, stored sealed (a concurrent store wins).
   */
  private renew(resourceId: number, expired: ListmgrTokens, client: CampaignMonitorLists): Promise<ListmgrTokens | null> {
    const pending = this.renewals.get(resourceId);
    if (pending) return pending;
    const renewal = (async () => {
      const access = await this.deps.configs.access(resourceId, 'listmgr');
      const stored = readListmgrTokens(access?.secret);
      if (!access || !stored) return null;
      if (stored.access_token !== expired.access_token) return stored;
      if (!stored.refresh_token) return null;
      const fresh = await client.refresh(stored.refresh_token).catch(() => null);
      if (!fresh) return null;
      if (!(await this.deps.configs.replaceSecret(access.record, JSON.stringify(fresh)))) {
        this.deps.logger.warn({ resourceId }, 'listmgr tokens changed during a refresh; the stored ones win next time');
      }
      return fresh;
    })().finally(() => this.renewals.delete(resourceId));
    this.renewals.set(resourceId, renewal);
    return renewal;
  }
}

/** A member field's value for a list custom field; missing values are empty strings. */
export function memberValue(user: User, source: string): string {
  if (source.startsWith('extra.')) return fieldText(user.extra?.[source.slice('extra.'.length)]);
  const fields: Record<string, unknown> = {
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    nick_name: user.nickName,
    phone: user.phone,
    company: user.company,
    job: user.job,
    country: user.country,
    state: user.state,
    city: user.city,
    address: user.address,
    zip: user.zip,
  };
  return fieldText(fields[source]);
}

const fieldText = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
