import { Writable } from 'node:stream';
import type { RouteDefinition } from '@masthead/gateway';
import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { StackHandle } from './support.js';

/**
 * Property-based requests against the running stack (issue 15): what a hostile or careless client
 * sends — wrong types, missing and extra fields, huge and deeply nested bodies, odd Unicode,
 * invalid IDs, hostile headers — to every route of the table, and what every answer must be.
 */

/** The credentials of the run: the fuzzer sends them, no answer and no log line may show them. */
export interface Secrets {
  resourceKey: string;
  memberToken: string;
  adminToken: string;
  memberPassword: string;
  adminPassword: string;
  serviceKey: string;
  /** Values that must never appear, though the fuzzer does not send them (server-side secrets). */
  neverSent: string[];
}

/**
 * A tenant with a full-access service account (`title`), and `signIn`: a new member and a new
 * admin signed in on each call, for when a run's requests sign out, change passwords or suspend.
 */
export async function hostileTenant(
  s: StackHandle,
  title: string,
  neverSent: string[],
): Promise<{ tenant: Tenant; signIn: () => Promise<Secrets> }> {
  const tenant = await createTenant(s.stack, { settings: { single_subscription: false } });
  const { key: serviceKey } = await s.stack.operator.serviceAccounts.createServiceAccount({
    resourceId: tenant.resourceId,
    title,
    fullAccess: true,
    grants: [],
  });
  const tokenOf = async (email: string, password: string) => {
    const response = await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: { email, password } });
    expect(response.status).toBe(200);
    return response.body['token'] as string;
  };
  const signIn = async (): Promise<Secrets> => {
    const [member, admin] = await Promise.all([createMember(s.stack, tenant), createMember(s.stack, tenant, { role: 'admin' })]);
    return {
      resourceKey: tenant.publicKey,
      memberToken: await tokenOf(member.email, member.password),
      adminToken: await tokenOf(admin.email, admin.password),
      memberPassword: member.password,
      adminPassword: admin.password,
      serviceKey,
      neverSent,
    };
  };
  return { tenant, signIn };
}

/** One generated request. */
export interface FuzzRequest {
  method: string;
  /** Path under /api/v1, parameters filled in (percent-encoded, or raw on purpose). */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Routes by the service that owns them: one family each. */
export function familiesOf(routes: readonly RouteDefinition[]): Map<string, RouteDefinition[]> {
  const families = new Map<string, RouteDefinition[]>();
  for (const route of routes) families.set(route.service, [...(families.get(route.service) ?? []), route]);
  return families;
}

/** Field names the operations read, so that wrong types meet real decoders, not only unknown keys. */
export const FIELDS = [
  'email',
  'password',
  'new_password',
  'first_name',
  'last_name',
  'nick_name',
  'city',
  'country',
  'phone',
  'extra',
  'extra_groups',
  'group_key',
  'field_key',
  'field_value',
  'custom_fields',
  'tags',
  'language_id',
  'language_slug',
  'code',
  'token',
  'refresh_token',
  'redirect_uri',
  'response_type',
  'plan_id',
  'pricing_id',
  'subscription_id',
  'team_id',
  'name',
  'description',
  'emails',
  'invite_id',
  'card_customer_id',
  'setup_intent',
  'payment_method',
  'external_source_id',
  'source_type',
  'autorenew',
  'page',
  'limit',
  'filter',
  'id',
  'user_id',
  'list_ids',
  'reusable_refresh',
];

/** Text a decoder may choke on: control characters, lone surrogates, bidi overrides, emoji, long runs. */
const oddText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff',
    '\u202eevil',
    '\u200b\u200d',
    '🧨💥👩‍👩‍👧‍👦',
    'Ω≈ç√∫',
    '../../etc/passwd',
    "' OR 1=1 --",
    '{"$gt": ""}',
    '<script>alert(1)</script>',
    '%00%0d%0a',
    'null',
    'true',
    '1e308',
    '-0',
  ),
  fc.integer({ min: 1000, max: 20_000 }).map((length) => 'x'.repeat(length)),
);

/** Odd text short enough for a URL: a long one goes to 431 before any route runs (now and then it should). */
const urlText = fc.oneof(
  { weight: 30, arbitrary: oddText.filter((text) => text.length < 300) },
  { weight: 1, arbitrary: fc.integer({ min: 2_000, max: 20_000 }).map((length) => 'u'.repeat(length)) },
);

/** A value of any JSON type, a wrong one for most fields. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.constantFrom(0, -1, 2 ** 31, 2 ** 53 + 1, 1e308, -1e308),
  oddText,
  fc.array(fc.oneof(fc.integer(), oddText), { maxLength: 5 }),
  fc.dictionary(fc.constantFrom(...FIELDS), fc.oneof(fc.integer(), oddText, fc.constant(null)), { maxKeys: 4 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Percent-encoded text; a lone surrogate (not encodable as UTF-8) goes as raw UTF-16 bytes. */
const encoded = (text: string): string => {
  try {
    return encodeURIComponent(text);
  } catch {
    return Buffer.from(text, 'utf16le').toString('hex').replace(/(..)/g, '%$1');
  }
};

/** Values an ID parameter may be sent as. */
const idText = fc.oneof(
  fc.nat({ max: 40 }).map(String),
  fc.constantFrom('0', '-1', '1.5', '1e3', '0x10', ' 1', '1 ', '999999999', '9999999999', '99999999999999999999', 'null', 'undefined'),
  urlText.map(encoded),
  // Raw on purpose: malformed percent-encoding and dot segments.
  fc.constantFrom('%', '%ZZ', '%c0%ae', '..', '.', '%2e%2e', '%2F', 'a%00b'),
);

/** A JSON text nested `depth` levels deep (arrays or objects). */
const nested = fc
  .tuple(fc.integer({ min: 50, max: 5000 }), fc.boolean())
  .map(([depth, arrays]) => (arrays ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));

/** A body as a client might send it, with the content type it claims (not always the right one). */
function bodyOf(secrets: Secrets): fc.Arbitrary<{ contentType?: string; body?: string }> {
  const json = (value: unknown) => ({ contentType: 'application/json', body: JSON.stringify(value) });
  // Now and then real credentials where credentials go (never in fields that are stored and shown,
  // which would make the member's own data look like a leak): they must not come back or reach a log.
  const realCredentials = fc.oneof(
    { weight: 4, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc.record(
        {
          password: fc.constant(secrets.memberPassword),
          refresh_token: fc.constant(secrets.memberToken),
          token: fc.constant(secrets.adminToken),
        },
        { requiredKeys: [] },
      ),
    },
  );
  const fieldsWithWrongTypes = fc
    .tuple(fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 12 })), wrongValue, { maxKeys: 6 }), realCredentials)
    .map(([fields, real]) => ({ ...fields, ...real }));
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant({}) },
    { weight: 6, arbitrary: fieldsWithWrongTypes.map(json) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map(json) },
    { weight: 1, arbitrary: nested.map((body) => ({ contentType: 'application/json', body })) },
    // Huge: beyond BODY_LIMIT (1 MiB) now and then.
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 100_000, max: 1_200_000 })
        .map((size) => ({ contentType: 'application/json', body: JSON.stringify({ email: 'x'.repeat(size) }) })),
    },
    // Lone surrogates and NUL as JSON escapes, which JSON.stringify would not produce.
    {
      weight: 1,
      arbitrary: fc.constantFrom('\\ud800', '\\udfff', '\\u0000', '\\u202e').map((escape) => ({
        contentType: 'application/json',
        body: `{"email":"a${escape}@x.test","first_name":"${escape}","password":"${escape}"}`,
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('{', '{"a":', 'nul', '[1,2', '"\\x"', '{"a":1}}', '\u0000')
        .map((body) => ({ contentType: 'application/json', body })),
    },
    {
      weight: 1,
      arbitrary: fieldsWithWrongTypes.map((fields) => ({
        contentType: 'application/x-www-form-urlencoded',
        body: new URLSearchParams(
          Object.entries(fields).map(([key, value]): [string, string] => [
            key,
            typeof value === 'string' ? value : (JSON.stringify(value) ?? ''),
          ]),
        ).toString(),
      })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.string({ maxLength: 20 }), oddText).map(([boundary, text]) => ({
        contentType: `multipart/form-data; boundary=${boundary.replace(/[^\x21-\x7e]/g, '') || 'b'}`,
        body: `--b\r\ncontent-disposition: form-data; name="file"; filename="${text}"\r\n\r\n${text}\r\n--b--`,
      })),
    },
    { weight: 1, arbitrary: fieldsWithWrongTypes.map((fields) => ({ contentType: 'text/plain', body: JSON.stringify(fields) })) },
  );
}

/** Header values a client can send (visible ASCII and Latin-1: fetch refuses the rest). */
const headerText = fc.oneof(
  fc.string({ maxLength: 30 }).map((text) => text.replace(/[^\x20-\x7e]/g, '')),
  fc.constantFrom('', ' ', 'null', 'Bearer x', "' OR 1=1", '../../', 'é\u00ff', '{"a":1}', '1e308'),
);

function headersOf(secrets: Secrets): fc.Arbitrary<Record<string, string>> {
  const mostly = <T>(valid: T, invalid: fc.Arbitrary<T>) =>
    fc.oneof({ weight: 4, arbitrary: fc.constant(valid) }, { weight: 1, arbitrary: invalid });
  return fc
    .tuple(
      fc.record(
        {
          resource: mostly(secrets.resourceKey, headerText),
          token: fc.oneof(
            { weight: 3, arbitrary: fc.constant(secrets.memberToken) },
            { weight: 2, arbitrary: fc.constant(secrets.adminToken) },
            { weight: 1, arbitrary: headerText },
          ),
          'service-api-key': fc.oneof(
            fc.constant(secrets.serviceKey),
            headerText.map((text) => `msk_${text}`),
          ),
          'idp-token': headerText,
          session: headerText,
          'source-type': headerText,
          'x-forwarded-for': fc.constantFrom('1.2.3.4', '::1', 'not-an-ip', '1.2.3.4, 5.6.7.8', '999.1.1.1'),
          origin: fc.constantFrom('http://evil.test', 'null', 'http://localhost:3000'),
          'accept-language': headerText,
          'x-request-id': headerText,
        },
        { requiredKeys: ['resource'] },
      ),
      // Now and then one huge header: within Node's 16 KiB, or beyond it (431 before any route).
      fc.oneof(
        { weight: 19, arbitrary: fc.constant(undefined) },
        {
          weight: 1,
          arbitrary: fc.tuple(fc.constantFrom('token', 'resource', 'x-custom', 'cookie'), fc.integer({ min: 2_000, max: 20_000 })),
        },
      ),
    )
    .map(([headers, huge]) => (huge ? { ...headers, [huge[0]]: 'h'.repeat(huge[1]) } : headers));
}

/** Query parameter names the operations read. */
export const QUERY_KEYS = [
  'page',
  'limit',
  'filter',
  'sort',
  'email',
  'id',
  'external_source_id',
  'group_key',
  'with_plans',
  'q',
  'currency',
];
const query = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(...QUERY_KEYS),
        fc.constantFrom('filter[Plans.id]', 'page[]', 'a[b][c]', '__proto__', 'constructor[prototype]'),
        fc.string({ maxLength: 8 }),
      ),
      fc.oneof(idText, urlText.map(encoded)),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([key, value]) => `${encoded(key)}=${value}`).join('&')}`));

/** A request to one of `routes`: its method and path template, everything else generated. */
export function requestOf(routes: readonly RouteDefinition[], secrets: Secrets): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      route: fc.constantFrom(...routes),
      ids: fc.array(idText, { minLength: 4, maxLength: 4 }),
      query,
      headers: headersOf(secrets),
      body: bodyOf(secrets),
    })
    .map(({ route, ids, query: search, headers, body }) => {
      let index = 0;
      const path = route.path.replace(/\{\w+\}/g, () => ids[index++] ?? '1') + search;
      const withBody = route.method !== 'GET' || body.body === undefined ? body : {};
      return {
        method: route.method,
        path,
        headers: { ...headers, ...(withBody.contentType ? { 'content-type': withBody.contentType } : {}) },
        body: withBody.body,
      };
    });
}

/** A stack trace in an answer: `at f (file:1:2)` frames or a Node error's stack header. */
const STACK_TRACE = /\n\s+at |\bat [\w.<>]+ \((?:file:|\/|node:)[^)]*:\d+:\d+\)|node_modules\//;

/**
 * The 5xx answers the contract itself documents (a route's documented error is never a defect):
 * document 2 H's 500 integration_error (provider not configured), document 1 D's legacy customer
 * creation 500 incorrect_customer (its import too) and 500 internal_error.
 */
function documented5xx(template: string | undefined, status: number, body: unknown): boolean {
  const code = (body as { error?: unknown } | undefined)?.error;
  if (status !== 500) return false;
  if (code === 'integration_error') return template?.startsWith('/integrations/') ?? false;
  // Legacy customer creation, and its import sibling (docs/adr/0124), answer the same 500s.
  if (code === 'incorrect_customer') return template === '/user/cardprovider/customer' || template === '/user/cardprovider/customer/import';
  return template === '/user/cardprovider/customer' && code === 'internal_error';
}

/**
 * The errors document 2 K spells outside the envelope: resource-settings without a resource answers
 * 401 `[]`; a template not found answers 404 with `error` and `error_description`, no `req_guid`.
 */
function documentedBareError(template: string | undefined, status: number, body: unknown): boolean {
  if (template === '/integrations/resource-settings') return status === 401 && Array.isArray(body) && body.length === 0;
  const { error, error_description: description, ...rest } = (body ?? {}) as Record<string, unknown>;
  return (
    template === '/integrations/templates/{name}' &&
    status === 404 &&
    error === 'template_not_found' &&
    typeof description === 'string' &&
    Object.keys(rest).length === 0
  );
}

/** Everything wrong with one answer (empty when it is fine). */
export function problemsOf(
  template: string | undefined,
  answer: { status: number; text: string; body: unknown },
  secrets: Secrets,
): string[] {
  const problems: string[] = [];
  if (answer.status >= 500 && !documented5xx(template, answer.status, answer.body)) problems.push(`status ${answer.status}`);
  if (answer.status >= 400 && !isEnvelope(answer.body) && !documentedBareError(template, answer.status, answer.body))
    problems.push('error without the envelope and its req_guid');
  if (STACK_TRACE.test(answer.text)) problems.push('stack trace');
  for (const [name, value] of credentials(secrets)) {
    // A session result hands out new tokens, never the one sent; nothing else shows a credential.
    if (value.length >= 8 && answer.text.includes(value)) problems.push(`the ${name} in the answer`);
  }
  return problems;
}

/** The envelope of document 1: `{error, error_description, req_guid}` or `{error: true, error_fields, req_guid}`. */
export function isEnvelope(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const record = body as Record<string, unknown>;
  if (typeof record['req_guid'] !== 'string' || !/^[0-9a-f-]{36}$/.test(record['req_guid'])) return false;
  if (record['error'] === true) return typeof record['error_fields'] === 'object' && record['error_fields'] !== null;
  return typeof record['error'] === 'string' && record['error'] !== '' && typeof record['error_description'] === 'string';
}

export function credentials(secrets: Secrets): Array<[string, string]> {
  return [
    ['member password', secrets.memberPassword],
    ['admin password', secrets.adminPassword],
    ['member token', secrets.memberToken],
    ['admin token', secrets.adminToken],
    ['service key', secrets.serviceKey],
    ...secrets.neverSent.map((value): [string, string] => ['server secret', value]),
  ];
}

/** Log records of the stack, kept in memory for the scan at the end. */
export function logSink(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}
