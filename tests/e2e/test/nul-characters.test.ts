import { ROUTES, type RouteDefinition } from '@masthead/gateway';
import type { Tenant } from '@masthead/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { catalogKit } from './catalog-support.js';
import { familiesOf, FIELDS, hostileTenant, problemsOf, QUERY_KEYS, type Secrets } from './fuzz-support.js';
import { anyRequestId, useStack } from './support.js';

/**
 * A NUL character (U+0000) in every input of every route (issue 15): PostgreSQL's text holds no
 * NUL, so a string carrying one must be answered before it reaches FerretDB (a lookup key matches
 * nothing, a value to store is a field error, a search text matches nothing), never with a 500.
 * Deterministic, where the fuzzer (fuzz.test.ts) finds these one seed at a time.
 */
const NUL_TEXT = 'a\u0000b';
const NUL_IN_URL = encodeURIComponent(NUL_TEXT);
const CONCURRENCY = 16;

/**
 * The text filters of the paginated lists (`filter[…]`, the services' *.list-spec.ts): a filter
 * name a list does not know is refused before any query, so each is sent on its own.
 */
const TEXT_FILTERS = [
  'title',
  'slug',
  'description',
  'action',
  'currency',
  'period',
  'type',
  'subscriptions.type',
  'Plans.title',
  'Subscriptions.title',
  'Teams.name',
];

type Parameter = { name: string; in: string; style?: string };
type Schema = { type?: string | string[]; properties?: Record<string, Schema>; items?: Schema };
type Operation = { parameters: Parameter[]; requestBody?: { content: Record<string, { schema?: Schema }> } };

/**
 * A NUL in each field the document names inside a body field (an object's, or an array's items'),
 * one at a time: `{items: [{promo: NUL}]}`, `{customer: {customer_id: NUL}}`.
 */
function nestedBodies(properties: Record<string, Schema>): Array<{ where: string; body: Record<string, unknown> }> {
  return Object.entries(properties).flatMap(([name, schema]) => {
    const list = schema.items?.properties;
    const inner = list ?? schema.properties ?? {};
    return Object.keys(inner).map((field) => ({
      where: `body ${name}${list ? '[]' : ''}.${field}`,
      body: { [name]: list ? [{ [field]: NUL_TEXT }] : { [field]: NUL_TEXT } },
    }));
  });
}

/** One request carrying a NUL, and where it carries it (for the failure report). */
interface Probe {
  route: RouteDefinition;
  where: string;
  path: string;
  body?: Record<string, unknown>;
}

/**
 * Every input of `route` with a NUL, one at a time: each path parameter, each query parameter the
 * OpenAPI document names or the fuzzer sends (a list's text filters too), each body field the
 * document names or the fuzzer sends, each field the document names one level inside one, and
 * every body field at once.
 */
function probesOf(route: RouteDefinition, operation: Operation): Probe[] {
  const parameters = (kind: string) => operation.parameters.filter((parameter) => parameter.in === kind);
  const pathNames = parameters('path').map((parameter) => parameter.name);
  const pathWith = (nulIn?: string) => route.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === nulIn ? NUL_IN_URL : '1'));
  const isList = parameters('query').some((parameter) => parameter.style === 'deepObject');
  const queryNames = new Set([
    ...parameters('query')
      .filter((parameter) => parameter.style !== 'deepObject')
      .map((parameter) => parameter.name),
    ...QUERY_KEYS,
    ...(isList ? TEXT_FILTERS.map((name) => `filter[${name}]`) : []),
  ]);
  const probes: Probe[] = [
    ...pathNames.map((name) => ({ route, where: `path ${name}`, path: pathWith(name) })),
    ...[...queryNames].map((name) => ({ route, where: `query ${name}`, path: `${pathWith()}?${encodeURIComponent(name)}=${NUL_IN_URL}` })),
  ];
  const json = operation.requestBody?.content['application/json'];
  if (json) {
    const documented = json.schema?.properties ?? {};
    const bodyNames = [...new Set([...Object.keys(documented), ...FIELDS])];
    probes.push(...nestedBodies(documented).map(({ where, body }) => ({ route, where, path: pathWith(), body })));
    probes.push(...bodyNames.map((name) => ({ route, where: `body ${name}`, path: pathWith(), body: { [name]: NUL_TEXT } })), {
      route,
      where: 'every body field',
      path: pathWith(),
      body: Object.fromEntries(bodyNames.map((name) => [name, NUL_TEXT])),
    });
  }
  return probes;
}

describe('a NUL character in any input of any route', () => {
  // The card provider's webhook endpoint is configured (else it answers its documented 503 to all).
  const s = useStack({
    env: {
      REGISTRATION_LIMIT_PER_HOUR: '1000',
      EMAIL_VALIDATION_LIMIT_PER_HOUR: '1000',
      CARDPROVIDER_WEBHOOK_SECRETS: 'whsec_nul_endpoint_secret',
    },
  });
  let tenant: Tenant;
  let operations: Record<string, Record<string, Operation>>;
  let secrets: Secrets;
  /** A member and an admin, signed in: again whenever a route (sign-out, suspension) ended their session. */
  let signInAnew: () => Promise<Secrets>;

  beforeAll(async () => {
    ({ tenant, signIn: signInAnew } = await hostileTenant(s, 'NUL', []));
    secrets = await signInAnew();
    const document = await s.api('/openapi.json');
    expect(document.status).toBe(200);
    operations = (document.body as { paths: typeof operations }).paths;
  });

  /** The credentials that get past the route's access class. */
  const headersOf = (route: RouteDefinition): Record<string, string> => {
    const resource = { resource: secrets.resourceKey };
    if (route.access === 'serviceAccount') return { ...resource, 'service-api-key': secrets.serviceKey };
    if (route.access === 'admin') return { ...resource, token: secrets.adminToken };
    if (route.access.startsWith('member') || route.access === 'guestOrMember') return { ...resource, token: secrets.memberToken };
    return resource;
  };

  const send = async (probe: Probe) => {
    const headers = headersOf(probe.route);
    const answer = await s.api(probe.path, { method: probe.route.method, headers, ...(probe.body ? { json: probe.body } : {}) });
    return { ...answer, token: headers['token'] };
  };

  /**
   * The probe's answer: a 401 sent with a session another probe ended (a sign-out, a suspension)
   * is sent again, signed in anew; a 401 with a session that still signs in is the route's own.
   */
  const judged = async (probe: Probe, answer: Awaited<ReturnType<typeof send>>) => {
    if (answer.status !== 401 || answer.token === undefined) return answer;
    if (answer.token === headersOf(probe.route)['token']) {
      const check = await s.api('/user', { headers: headersOf(probe.route) });
      if (check.status === 200) return answer;
      secrets = await signInAnew();
    }
    return send(probe);
  };

  // Inputs the probes above do not reach: a NUL inside an otherwise valid request.
  it('answers a promo code with a NUL as not found at every checkout step', async () => {
    const kit = catalogKit(s);
    const plan = await kit.plan(tenant, 'nul', { title: 'NUL' });
    const pricing = await kit.pricing(plan.id, 'Monthly', { price: 499 });
    const json = { items: [{ item_type: 'subscription', item_key: String(pricing.id), promo: NUL_TEXT }] };
    for (const path of ['/payment/calculate-price', '/promo-validation', '/payment']) {
      const response = await s.api(path, { headers: { resource: tenant.publicKey, token: secrets.memberToken }, json });
      expect({ path, status: response.status, body: response.body }).toEqual({
        path,
        status: 409,
        body: { error: 'invalid_promo', error_description: 'Promo code not found', req_guid: anyRequestId },
      });
    }
  });

  it('refuses an account request with a NUL in any text it would store (409 error_fields)', async () => {
    const application = {
      first_name: 'Ada',
      last_name: 'Lovelace',
      company_name: 'Analytical',
      job_title: 'Engineer',
      plan: 'basic',
      email: 'ada@example.test',
      phone_number: '+44 1',
      cardprovider_token: 'tok_visa',
    };
    for (const field of Object.keys(application)) {
      const response = await s.api('/account-requests', { json: { ...application, [field]: `${field}\u0000` } });
      const message = field === 'email' ? 'email must be a valid email address' : `${field} must not contain a NUL character`;
      expect({ status: response.status, body: response.body }).toEqual({
        status: 409,
        body: { error: true, error_fields: { [field]: message }, req_guid: anyRequestId },
      });
    }
    // A phone number is stored as the text of whatever was sent, an array's too.
    const phone = await s.api('/account-requests', { json: { ...application, phone_number: ['1', NUL_TEXT] } });
    expect([phone.status, phone.body['error_fields']]).toEqual([409, { phone_number: 'phone_number must not contain a NUL character' }]);
  });

  for (const [family, routes] of familiesOf(ROUTES)) {
    it(`answers the ${family} routes within the contract`, { timeout: 120_000 }, async () => {
      const failures: string[] = [];
      let sent = 0;
      for (const route of routes) {
        const own = probesOf(route, operations[route.path]![route.method.toLowerCase()]!);
        sent += own.length;
        for (let start = 0; start < own.length; start += CONCURRENCY) {
          const batch = own.slice(start, start + CONCURRENCY);
          // Sent together; a 401 is re-checked one by one (a sign-out in the batch ends the session of the rest).
          const first = await Promise.all(batch.map(send));
          for (const [index, probe] of batch.entries()) {
            const answer = await judged(probe, first[index]!);
            const problems = problemsOf(route.path, answer, secrets);
            if (problems.length > 0)
              failures.push(`${route.method} ${route.path} (NUL in ${probe.where}): ${problems.join(', ')} ${answer.text.slice(0, 200)}`);
          }
        }
      }
      expect(failures).toEqual([]);
      expect(sent).toBeGreaterThan(routes.length);
    });
  }
});
