import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { apiClient, startStack, type ApiClient, type Stack, type StackOptions } from '@masthead/testkit';
import { MongoClient, type Db } from 'mongodb';
import { connect, StringCodec, type NatsConnection } from 'nats';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { privateNats, type PrivateNats } from './nats-support.js';

export interface StackHandle {
  stack: Stack;
  api: ApiClient;
  /** A service's own database, for arranging states no API creates yet and for reading effects. */
  db(service: string): Db;
  nats: NatsConnection;
}

/**
 * One stack per test file over the run's shared FerretDB, on a NATS of the file's own unless the
 * file brings one (`options.natsUrl`, read when the stack starts); stopped after the file.
 */
export function useStack(options: Partial<StackOptions> = {}): StackHandle {
  const handle = {} as StackHandle;
  let mongo: MongoClient;
  let ownNats: PrivateNats | undefined;
  beforeAll(async () => {
    if (!options.natsUrl) ownNats = await privateNats();
    // Every stack talks to the run's Firebase Auth emulator (document 1, section A).
    const idpEnv: Record<string, string> = inject('idpEmulatorHost') ? { FIREBASE_AUTH_EMULATOR_HOST: inject('idpEmulatorHost') } : {};
    // Billing's card-provider calls go to the run's localstripe (docs/adr/0110).
    const cardProviderEnv: Record<string, string> = inject('localStripeUrl') ? { CARDPROVIDER_API_BASE: inject('localStripeUrl') } : {};
    handle.stack = await startStack({
      mongoUrl: inject('mongoUrl'),
      ...options,
      natsUrl: options.natsUrl ?? ownNats!.url,
      env: { ...idpEnv, ...cardProviderEnv, ...options.env },
    });
    handle.api = apiClient(handle.stack.baseUrl);
    mongo = await MongoClient.connect(inject('mongoUrl'));
    handle.db = (service) => mongo.db(`${handle.stack.dbPrefix}${service}`);
    handle.nats = await connect({ servers: handle.stack.env['NATS_URL']! });
  });
  afterAll(async () => {
    await handle.nats?.close();
    await mongo?.close();
    await handle.stack?.stop();
    await ownNats?.stop();
  });
  return handle;
}

/**
 * Expires every session of a user in the database. A token's own expiry decides whether it
 * expired (docs/adr/0204), so its tokens expire with the sessions.
 */
export async function expireSessionsOf(s: StackHandle, userId: number): Promise<void> {
  const db = s.db('identity');
  const past = new Date(Date.now() - 1000);
  const sessions = await db
    .collection('sessions')
    .find({ user_id: userId }, { projection: { _id: 1 } })
    .toArray();
  await db.collection('sessions').updateMany({ user_id: userId }, { $set: { expires_at: past } });
  await db
    .collection('session_tokens')
    .updateMany({ session_id: { $in: sessions.map((session) => session._id) } }, { $set: { expires_at: past } });
}

/** Polls until the probe returns a value or the deadline passes (never a fixed sleep). */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met before the deadline');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Collects events of one name from NATS for the rest of the test. */
export function collectEvents(nats: NatsConnection, name: string): Array<Record<string, unknown>> {
  const seen: Array<Record<string, unknown>> = [];
  const subscription = nats.subscribe(`masthead.events.${name}`);
  void (async () => {
    for await (const message of subscription) seen.push(JSON.parse(StringCodec().decode(message.data)) as Record<string, unknown>);
  })();
  return seen;
}

/** Waits for the collected event whose payload `field` holds `value` (a value unique to the test). */
export const eventWhere = (events: Array<Record<string, unknown>>, field: string, value: unknown) =>
  eventually(async () => events.find((event) => (event['payload'] as Record<string, unknown>)[field] === value));

/** Matchers for generated values in whole-body assertions. */
export const anyRequestId = expectString(/^[0-9a-f-]{36}$/);
function expectString(pattern: RegExp) {
  return {
    asymmetricMatch: (value: unknown) => typeof value === 'string' && pattern.test(value),
    toString: () => `string matching ${pattern}`,
  };
}
export const anyIsoDate = expectString(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
export const anyToken = expectString(/^[A-Za-z0-9_-]{40,}$/);
/** A compact JWS: the entitlement token beside a session token (docs/adr/0246). */
export const anyEntitlementToken = expectString(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{86}$/);

/**
 * The credential fields of a session result (document 1, Resources), for whole-body assertions,
 * with the entitlement token beyond the spec that a session of a resource carries.
 */
export const anySessionCredentials = () => ({
  token_type: 'bearer',
  token: anyToken,
  refresh_token: anyToken,
  session_id: expect.any(Number),
  expires: expect.any(Number),
  entitlement_token: anyEntitlementToken,
});

/** Profile fields of a member created without them: all null in the user projection (ADR 0007). */
const BLANK_PROFILE_FIELDS = [
  'nick_name',
  'first_name',
  'last_name',
  'photo',
  'country',
  'city',
  'state',
  'address',
  'zip',
  'phone',
  'company',
  'job',
  'language_id',
];

/** The whole user projection of a member created without profile fields; `fields` override. */
export const blankUserProjection = (id: number, email: string, fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  id,
  email,
  active: true,
  ...Object.fromEntries(BLANK_PROFILE_FIELDS.map((field) => [field, null])),
  email_confirmed: true,
  created_at: anyIsoDate,
  updated_at: anyIsoDate,
  ...fields,
});

/**
 * Records the paths of a gateway's outgoing gRPC calls (DESIGN.md "Hot paths"): give `counter`
 * to `useStack({gatewayInterceptors})` and read `calls`.
 */
export function grpcCallCounter(): { calls: string[]; counter: Interceptor } {
  const calls: string[] = [];
  const counter: Interceptor = (options, next) => {
    calls.push(options.method_definition.path);
    return new InterceptingCall(next(options));
  };
  return { calls, counter };
}
