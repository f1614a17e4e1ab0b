import { randomBytes } from 'node:crypto';
import {
  armRateLimit,
  bodyObject,
  router,
  startFakeProviderServer,
  type FakeAnswer,
  type FakeCall,
  type FakeProviderServer,
  type RateLimitOptions,
} from './server.js';

/**
 * A stateful fake of the `listmgr` provider's API v3.3 (Campaign Monitor), answering as its
 * reference documents (docs/adr/0165): subscriber details per list (`State` Active, Unconfirmed,
 * Unsubscribed, …; code 203 when not in the list), adding a subscriber (201 with the email; new
 * subscribers of a confirmed-opt-in list stay Unconfirmed; an unsubscribed one comes back only
 * with `Resubscribe`), unsubscribing, and the OAuth token refresh. Errors are `{Code, Message}`;
 * an expired access token is 401 code 121. A 429 carries X-RateLimit-* headers.
 */

export interface FakeSubscriber {
  EmailAddress: string;
  Name: string;
  Date: string;
  ListJoinedDate: string;
  State: string;
  CustomFields: Array<{ Key: string; Value: string }>;
  ConsentToTrack: string;
  /** How many times a resubscription restarted its autoresponders. */
  restarts: number;
}

export class FakeListmgrAccount {
  readonly lists = new Map<string, { confirmedOptIn: boolean; subscribers: Map<string, FakeSubscriber> }>();
  accessToken: string;
  refreshToken: string;
  expired = false;

  constructor(accessToken: string, refreshToken: string) {
    this.accessToken = accessToken;
    this.refreshToken = refreshToken;
  }

  list(id: string, options: { confirmedOptIn?: boolean } = {}) {
    const list = this.lists.get(id) ?? { confirmedOptIn: options.confirmedOptIn ?? false, subscribers: new Map<string, FakeSubscriber>() };
    this.lists.set(id, list);
    return list;
  }

  subscriber(listId: string, email: string): FakeSubscriber | undefined {
    return this.lists.get(listId)?.subscribers.get(email.toLowerCase());
  }

  /** The access token passes its lifetime: calls answer 401 code 121 until refreshed. */
  expire(): void {
    this.expired = true;
  }
}

export interface FakeListmgr extends FakeProviderServer {
  /** The account reached with these OAuth tokens (created on first use). */
  account(accessToken: string, refreshToken: string): FakeListmgrAccount;
  /** The next `count` (matching) requests answer 429, X-RateLimit-Reset being `retryAfterSeconds` (default 1). */
  rateLimit(count: number, options?: RateLimitOptions): void;
}

const apiError = (status: number, code: number, text: string): FakeAnswer => ({ status, body: { Code: code, Message: text } });
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const CONSENT = ['Yes', 'No', 'Unchanged'];
const stamp = () => new Date().toISOString().slice(0, 19).replace('T', ' ');

export async function startFakeListmgr(): Promise<FakeListmgr> {
  const accounts: FakeListmgrAccount[] = [];
  const withAccount = (call: FakeCall, then: (account: FakeListmgrAccount) => FakeAnswer): FakeAnswer => {
    const token = /^Bearer (.+)$/.exec(call.headers.authorization ?? '')?.[1];
    const account = accounts.find((candidate) => candidate.accessToken === token);
    if (!account) return apiError(401, 120, 'Invalid OAuth Token');
    if (account.expired) return apiError(401, 121, 'Expired OAuth Token');
    return then(account);
  };
  const withList = (call: FakeCall, listId: string, then: (list: ReturnType<FakeListmgrAccount['list']>) => FakeAnswer) =>
    withAccount(call, (account) => {
      const list = account.lists.get(listId.replace(/\.json$/, ''));
      return list ? then(list) : apiError(400, 101, 'Invalid ListID');
    });

  const server = await startFakeProviderServer(
    router(
      [
        [
          'POST /oauth/token',
          (call) => {
            const form = bodyObject(call);
            const account = accounts.find((candidate) => candidate.refreshToken === form['refresh_token']);
            if (form['grant_type'] !== 'refresh_token' || !account) {
              return { status: 400, body: { error: 'invalid_grant', error_description: 'Specified refresh_token was invalid or expired' } };
            }
            account.accessToken = randomBytes(12).toString('hex');
            account.refreshToken = randomBytes(12).toString('hex');
            account.expired = false;
            return { status: 200, body: { access_token: account.accessToken, expires_in: 1209600, refresh_token: account.refreshToken } };
          },
        ],
        [
          'GET /api/v3.3/subscribers/:list',
          (call, [listId]) =>
            withList(call, listId!, (list) => {
              const subscriber = list.subscribers.get((call.query.get('email') ?? '').toLowerCase());
              if (!subscriber) return apiError(400, 203, 'Subscriber not in list or has already been removed.');
              const { EmailAddress, Name, Date, ListJoinedDate, State, CustomFields, ConsentToTrack } = subscriber;
              const tracking = call.query.get('includetrackingpreference') === 'true' ? { ConsentToTrack } : {};
              return {
                status: 200,
                body: { EmailAddress, Name, Date, ListJoinedDate, State, CustomFields, ReadsEmailWith: '', ...tracking },
              };
            }),
        ],
        [
          'POST /api/v3.3/subscribers/:list',
          (call, [listId]) =>
            withList(call, listId!, (list) => {
              const input = bodyObject(call);
              const email = typeof input['EmailAddress'] === 'string' ? input['EmailAddress'].trim() : '';
              if (!EMAIL.test(email)) return apiError(400, 1, 'Invalid Email Address');
              if (!CONSENT.includes(String(input['ConsentToTrack'])))
                return apiError(400, 1, 'ConsentToTrack must be Yes, No or Unchanged');
              const fields = Array.isArray(input['CustomFields']) ? (input['CustomFields'] as Array<{ Key: string; Value: string }>) : [];
              const existing = list.subscribers.get(email.toLowerCase());
              const now = stamp();
              const consent = String(input['ConsentToTrack']);
              if (!existing) {
                list.subscribers.set(email.toLowerCase(), {
                  EmailAddress: email,
                  Name: String(input['Name'] ?? ''),
                  Date: now,
                  ListJoinedDate: now,
                  State: list.confirmedOptIn ? 'Unconfirmed' : 'Active',
                  CustomFields: fields.map(({ Key, Value }) => ({ Key, Value })),
                  ConsentToTrack: consent === 'Unchanged' ? 'No' : consent,
                  restarts: 0,
                });
              } else {
                existing.Name = String(input['Name'] ?? existing.Name);
                for (const { Key, Value } of fields) {
                  const field = existing.CustomFields.find((candidate) => candidate.Key === Key);
                  if (field) field.Value = Value;
                  else existing.CustomFields.push({ Key, Value });
                }
                if (consent !== 'Unchanged') existing.ConsentToTrack = consent;
                if (existing.State !== 'Active' && existing.State !== 'Unconfirmed' && input['Resubscribe'] === true) {
                  existing.State = 'Active';
                  existing.Date = now;
                  if (input['RestartSubscriptionBasedAutoresponders'] === true) existing.restarts++;
                }
              }
              return { status: 201, body: JSON.stringify(email) };
            }),
        ],
        [
          'POST /api/v3.3/subscribers/:list/unsubscribe.json',
          (call, [listId]) =>
            withList(call, listId!, (list) => {
              const email = String(bodyObject(call)['EmailAddress'] ?? '').toLowerCase();
              const subscriber = list.subscribers.get(email);
              if (!subscriber) return apiError(400, 203, 'Subscriber not in list or has already been removed.');
              subscriber.State = 'Unsubscribed';
              return { status: 200 };
            }),
        ],
      ],
      () => apiError(404, 404, 'Not Found'),
    ),
  );
  return {
    ...server,
    account(accessToken, refreshToken) {
      let account = accounts.find((candidate) => candidate.accessToken === accessToken);
      if (!account) {
        account = new FakeListmgrAccount(accessToken, refreshToken);
        accounts.push(account);
      }
      return account;
    },
    rateLimit: (count, { retryAfterSeconds = 1, match } = {}) =>
      armRateLimit(
        server,
        count,
        { retryAfterSeconds, match },
        () => ({
          status: 429,
          headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0' },
          body: { Code: 429, Message: 'Rate limit exceeded' },
        }),
        'x-ratelimit-reset',
      ),
  };
}
