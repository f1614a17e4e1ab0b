import { createHash, randomUUID } from 'node:crypto';
import {
  armRateLimit,
  bodyObject,
  hexId,
  page,
  router,
  startFakeProviderServer,
  type FakeAnswer,
  type FakeCall,
  type FakeProviderServer,
  type RateLimitOptions,
} from './server.js';

/**
 * A stateful fake of the `audience` provider's Marketing API v3 (Mailchimp), answering as its
 * reference documents (docs/adr/0165): lists' interest categories, interests and merge fields
 * (offset pages, `count` default 10, at most 1000), list members (GET; PUT add-or-update by the
 * MD5 subscriber hash, with `status_if_new`; required merge fields and unknown interests refused)
 * and member tags. Errors are the provider's problem documents `{type, title, status, detail,
 * instance}`; a 429 is its "Too Many Requests" (armed with `rateLimit`). Accounts are API keys
 * (HTTP Basic password), each with its own lists: one key never sees another's data.
 */

type Json = Record<string, unknown>;

export interface FakeInterest {
  id: string;
  name: string;
  display_order: number;
}

export interface FakeCategory {
  id: string;
  title: string;
  type: string;
  display_order: number;
  interests: FakeInterest[];
}

export interface FakeMergeField {
  merge_id: number;
  tag: string;
  name: string;
  type: string;
  required: boolean;
}

export interface FakeMember {
  email_address: string;
  status: string;
  merge_fields: Json;
  interests: Record<string, boolean>;
  tags: Array<{ id: number; name: string }>;
  timestamp_signup: string;
  last_changed: string;
}

export class FakeAudienceList {
  readonly categories: FakeCategory[] = [];
  readonly mergeFields: FakeMergeField[] = [];
  readonly members = new Map<string, FakeMember>();

  constructor(
    readonly id: string,
    readonly name: string,
  ) {}

  /** Adds an interest category with interests named as given; returns it (IDs are generated). */
  category(title: string, interestNames: string[], type = 'checkboxes'): FakeCategory {
    const category: FakeCategory = {
      id: hexId(),
      title,
      type,
      display_order: this.categories.length,
      interests: interestNames.map((name, index) => ({ id: hexId(), name, display_order: index + 1 })),
    };
    this.categories.push(category);
    return category;
  }

  mergeField(tag: string, name: string, options: { type?: string; required?: boolean } = {}): void {
    this.mergeFields.push({
      merge_id: this.mergeFields.length + 1,
      tag,
      name,
      type: options.type ?? 'text',
      required: options.required ?? false,
    });
  }

  member(email: string): FakeMember | undefined {
    return this.members.get(subscriberHash(email));
  }

  allInterests(): FakeInterest[] {
    return this.categories.flatMap((category) => category.interests);
  }

  subscriberCount(interestId: string): number {
    return [...this.members.values()].filter((member) => member.status === 'subscribed' && member.interests[interestId]).length;
  }
}

export interface FakeAudience extends FakeProviderServer {
  /** The lists of the account behind `apiKey` (created on first use). */
  account(apiKey: string): { list(id: string, name?: string): FakeAudienceList };
  /** The next `count` (matching) requests answer 429, with Retry-After when given. */
  rateLimit(count: number, options?: RateLimitOptions): void;
}

export const subscriberHash = (email: string): string => createHash('md5').update(email.toLowerCase()).digest('hex');

const problem = (status: number, title: string, detail: string, extra: Json = {}): FakeAnswer => ({
  status,
  headers: { 'content-type': 'application/problem+json; charset=utf-8' },
  body: { type: 'https://mailchimp.com/developer/marketing/docs/errors/', title, status, detail, instance: randomUUID(), ...extra },
});
const notFound = () => problem(404, 'Resource Not Found', 'The requested resource could not be found.');
const invalid = (detail: string, errors?: Array<{ field: string; message: string }>) =>
  problem(400, 'Invalid Resource', detail, errors ? { errors } : {});

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const STATUSES = ['subscribed', 'unsubscribed', 'cleaned', 'pending', 'transactional'];

export async function startFakeAudience(): Promise<FakeAudience> {
  const accounts = new Map<string, Map<string, FakeAudienceList>>();
  const accountOf = (call: FakeCall) => {
    const basic = /^Basic (.+)$/.exec(call.headers.authorization ?? '')?.[1];
    const key = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':') : '';
    return accounts.get(key);
  };
  const links = (href: string) => [{ rel: 'self', href, method: 'GET', targetSchema: '' }];

  const memberBody = (list: FakeAudienceList, hash: string, member: FakeMember): Json => ({
    id: hash,
    email_address: member.email_address,
    unique_email_id: hash.slice(0, 10),
    contact_id: hash.slice(0, 16),
    full_name: [member.merge_fields['FNAME'], member.merge_fields['LNAME']].filter(Boolean).join(' '),
    web_id: Number.parseInt(hash.slice(0, 6), 16),
    email_type: 'html',
    status: member.status,
    consents_to_one_to_one_messaging: true,
    merge_fields: Object.fromEntries(list.mergeFields.map((field) => [field.tag, member.merge_fields[field.tag] ?? ''])),
    interests: Object.fromEntries(list.allInterests().map((interest) => [interest.id, member.interests[interest.id] ?? false])),
    stats: { avg_open_rate: 0, avg_click_rate: 0 },
    ip_signup: '',
    timestamp_signup: member.timestamp_signup,
    ip_opt: '',
    timestamp_opt: member.timestamp_signup,
    member_rating: 2,
    last_changed: member.last_changed,
    language: '',
    vip: false,
    email_client: '',
    location: { latitude: 0, longitude: 0, gmtoff: 0, dstoff: 0, country_code: '', timezone: '', region: '' },
    source: 'API - Generic',
    tags_count: member.tags.length,
    tags: member.tags,
    list_id: list.id,
    _links: links(`/3.0/lists/${list.id}/members/${hash}`),
  });

  const withList = (call: FakeCall, listId: string, then: (list: FakeAudienceList) => FakeAnswer): FakeAnswer => {
    const lists = accountOf(call);
    if (!lists) return problem(401, 'API Key Invalid', "Your API key may be invalid, or you've attempted to access the wrong datacenter.");
    const list = lists.get(listId);
    return list ? then(list) : notFound();
  };

  const putMember = (call: FakeCall, list: FakeAudienceList, hash: string): FakeAnswer => {
    const body = bodyObject(call);
    const email = typeof body['email_address'] === 'string' ? body['email_address'] : '';
    if (!EMAIL.test(email)) return invalid(`${email} looks fake or invalid, please enter a real email address.`);
    if (subscriberHash(email) !== hash) return invalid('The email address you provided does not match the subscriber hash.');
    const existing = list.members.get(hash);
    const status = (body['status'] ?? (existing ? undefined : body['status_if_new'])) as string | undefined;
    if (!existing && status === undefined)
      return invalid("The resource submitted could not be validated. For field-specific details, see the 'errors' array.", [
        { field: 'status_if_new', message: 'Schema describes string, NULL found instead' },
      ]);
    if (status !== undefined && !STATUSES.includes(status)) return invalid(`The status "${status}" is not valid.`);
    const merges = (body['merge_fields'] ?? {}) as Json;
    const interests = (body['interests'] ?? {}) as Record<string, unknown>;
    const known = new Set(list.allInterests().map((interest) => interest.id));
    const unknown = Object.keys(interests).find((id) => !known.has(id));
    if (unknown) return invalid(`Invalid interest ID: '${unknown}'.`);
    const mergeValues = {
      ...existing?.merge_fields,
      ...Object.fromEntries(Object.entries(merges).filter(([tag]) => list.mergeFields.some((f) => f.tag === tag))),
    };
    const missing = list.mergeFields.find((field) => field.required && !mergeValues[field.tag]);
    if (missing) return invalid('Your merge fields were invalid.', [{ field: missing.tag, message: 'Please enter a value' }]);
    const now = new Date().toISOString();
    const member: FakeMember = {
      email_address: email,
      status: status ?? existing!.status,
      merge_fields: mergeValues,
      interests: { ...existing?.interests, ...Object.fromEntries(Object.entries(interests).map(([id, value]) => [id, value === true])) },
      tags: existing?.tags ?? [],
      timestamp_signup: existing?.timestamp_signup ?? now,
      last_changed: now,
    };
    list.members.set(hash, member);
    return { status: 200, body: memberBody(list, hash, member) };
  };

  const collection = (call: FakeCall, key: string, items: Json[], extra: Json) => ({
    status: 200,
    body: { [key]: page(items, call, 'count', 10, 1000), ...extra, total_items: items.length, _links: links(call.path) },
  });

  const server = await startFakeProviderServer(
    router(
      [
        [
          'GET /3.0/lists/:list/interest-categories',
          (call, [listId]) =>
            withList(call, listId!, (list) =>
              collection(
                call,
                'categories',
                list.categories.map((category) => ({
                  list_id: list.id,
                  id: category.id,
                  title: category.title,
                  display_order: category.display_order,
                  type: category.type,
                  _links: links(`/3.0/lists/${list.id}/interest-categories/${category.id}`),
                })),
                { list_id: list.id },
              ),
            ),
        ],
        [
          'GET /3.0/lists/:list/interest-categories/:category/interests',
          (call, [listId, categoryId]) =>
            withList(call, listId!, (list) => {
              const category = list.categories.find((candidate) => candidate.id === categoryId);
              if (!category) return notFound();
              const interests = category.interests.map((interest) => ({
                category_id: category.id,
                list_id: list.id,
                id: interest.id,
                name: interest.name,
                // The provider sends this count as a string.
                subscriber_count: String(list.subscriberCount(interest.id)),
                display_order: interest.display_order,
                _links: links(`/3.0/lists/${list.id}/interest-categories/${category.id}/interests/${interest.id}`),
              }));
              return collection(call, 'interests', interests, { list_id: list.id, category_id: category.id });
            }),
        ],
        [
          'GET /3.0/lists/:list/merge-fields',
          (call, [listId]) =>
            withList(call, listId!, (list) =>
              collection(
                call,
                'merge_fields',
                list.mergeFields.map((field) => ({
                  ...field,
                  default_value: '',
                  public: true,
                  display_order: field.merge_id,
                  options: { size: 25 },
                  help_text: '',
                  list_id: list.id,
                  _links: links(`/3.0/lists/${list.id}/merge-fields/${field.merge_id}`),
                })),
                { list_id: list.id },
              ),
            ),
        ],
        [
          'GET /3.0/lists/:list/members/:hash',
          (call, [listId, hash]) =>
            withList(call, listId!, (list) => {
              const member = list.members.get(hash!);
              return member ? { status: 200, body: memberBody(list, hash!, member) } : notFound();
            }),
        ],
        ['PUT /3.0/lists/:list/members/:hash', (call, [listId, hash]) => withList(call, listId!, (list) => putMember(call, list, hash!))],
        [
          'POST /3.0/lists/:list/members/:hash/tags',
          (call, [listId, hash]) =>
            withList(call, listId!, (list) => {
              const member = list.members.get(hash!);
              if (!member) return notFound();
              const tags = bodyObject(call)['tags'];
              if (!Array.isArray(tags)) return invalid('tags is required');
              for (const tag of tags as Array<{ name?: unknown; status?: unknown }>) {
                const name = String(tag.name ?? '');
                const present = member.tags.findIndex((candidate) => candidate.name === name);
                if (tag.status === 'active' && present < 0) member.tags.push({ id: member.tags.length + 1, name });
                if (tag.status === 'inactive' && present >= 0) member.tags.splice(present, 1);
              }
              return { status: 204 };
            }),
        ],
      ],
      () => notFound(),
    ),
  );
  return {
    ...server,
    account(apiKey) {
      const lists = accounts.get(apiKey) ?? new Map<string, FakeAudienceList>();
      accounts.set(apiKey, lists);
      return {
        list(id, name = `List ${id}`) {
          const list = lists.get(id) ?? new FakeAudienceList(id, name);
          lists.set(id, list);
          return list;
        },
      };
    },
    rateLimit: (count, options = {}) =>
      armRateLimit(server, count, options, () =>
        problem(429, 'Too Many Requests', 'You have exceeded the limit of 10 simultaneous connections.'),
      ),
  };
}
