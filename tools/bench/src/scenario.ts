import type { HttpTarget } from './load.js';
import type { EndpointId } from './targets.js';

/** The endpoints loaded over HTTP (`verify` runs inside a process of the bench). */
export type HttpEndpointId = Exclude<EndpointId, 'verify'>;

/** The demo fixture's resource and member (fixtures/demo.json), loaded with the admin CLI. */
export const DEMO = { resourceKey: 'demo-resource', email: 'member@demo.test', password: 'Demo-password-1' } as const;

/**
 * Members the sign-in load rotates over. Identity lets one account run two sign-ins at once
 * (ADR 0091) and answers a burst on one account 429, so signing one member in over 16
 * connections would measure that guard, not the sign-in path; 32 members keep each one at one
 * request in flight.
 */
export const BENCH_MEMBERS = Array.from({ length: 32 }, (_, i) => ({ email: `bench-${i + 1}@demo.test`, password: 'Bench-password-1' }));

/** The demo fixture with the bench members added to the demo resource. */
export function benchFixture(demo: { partners: Array<{ resources: Array<{ public_key: string; members?: unknown[] }> }> }) {
  for (const resource of demo.partners.flatMap((partner) => partner.resources)) {
    if (resource.public_key !== DEMO.resourceKey) continue;
    resource.members = [
      ...(resource.members ?? []),
      ...BENCH_MEMBERS.map((member, i) => ({ ...member, first_name: 'Bench', last_name: `Member ${i + 1}` })),
    ];
  }
  return demo;
}

export interface Scenario {
  targets: Record<HttpEndpointId, HttpTarget>;
  /** The refresh of a session without a resource: the same work as `token`'s, less the entitlement token. */
  refreshBare: HttpTarget;
  /** What the verification process needs: a member session of the demo resource to ask tokens for. */
  verification: { apiBase: string; resource: string; sessionToken: string };
  /** The body of GET /plans, which the bare-express baseline serves as is. */
  plansJson: string;
}

async function call(url: string, init: RequestInit, expected: number): Promise<string> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (response.status !== expected)
    throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status} (expected ${expected}): ${text}`);
  return text;
}

/**
 * Reads what the benchmark needs through the public API, after the fixture is loaded: the plan
 * list (and one plan ID from it), a member token and a refresh token from one sign-in. Each
 * endpoint is called once and must answer as expected, so a broken stack fails here, not as a
 * fast stream of errors.
 */
export async function arrangeScenario(origin: string): Promise<Scenario> {
  const api = `${origin}/api/v1`;
  const resource = { resource: DEMO.resourceKey };
  const json = { ...resource, 'content-type': 'application/json' };

  const plansJson = await call(`${api}/plans`, { headers: resource }, 200);
  const plans = JSON.parse(plansJson) as { items?: Array<{ id?: unknown }> };
  const planId = plans.items?.[0]?.id;
  if (typeof planId !== 'number') throw new Error(`GET /plans listed no plan: ${plansJson}`);

  const credentials = JSON.stringify({ email: DEMO.email, password: DEMO.password });
  const session = JSON.parse(await call(`${api}/authorization`, { method: 'POST', headers: json, body: credentials }, 200)) as {
    token?: unknown;
    refresh_token?: unknown;
    entitlement_token?: unknown;
  };
  if (typeof session.token !== 'string' || typeof session.refresh_token !== 'string') throw new Error('POST /authorization gave no tokens');
  if (typeof session.entitlement_token !== 'string') throw new Error('POST /authorization gave no entitlement token');
  // The same member signed in without a resource: its session entitles to nothing, so its refresh carries no token.
  const bare = JSON.parse(
    await call(`${api}/authorization`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: credentials }, 200),
  ) as { refresh_token?: unknown; entitlement_token?: unknown };
  if (typeof bare.refresh_token !== 'string' || bare.entitlement_token !== undefined)
    throw new Error('a sign-in without a resource gave no refresh token, or an entitlement token');
  // reusable_refresh keeps the record, so one body can be repeated (document 1, B).
  const refreshOf = (refreshToken: string, headers: Record<string, string>): HttpTarget => ({
    url: `${api}/authorization/refresh`,
    method: 'POST',
    headers,
    body: JSON.stringify({ refresh_token: refreshToken, response_type: 'token', reusable_refresh: true }),
  });

  const targets: Record<HttpEndpointId, HttpTarget> = {
    plans: { url: `${api}/plans`, method: 'GET', headers: resource },
    plan: { url: `${api}/plans/${planId}`, method: 'GET', headers: resource },
    user: { url: `${api}/user`, method: 'GET', headers: { ...resource, token: session.token } },
    signin: {
      url: `${api}/authorization`,
      method: 'POST',
      headers: json,
      body: credentials,
      variants: BENCH_MEMBERS.map((member) => ({ body: JSON.stringify(member) })),
    },
    // A guest page view, as embedded clients send one on every page load (document 2 L).
    event: {
      url: `${api}/user/event`,
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: 'page_view', value: '/bench/article', content_key: 'bench-article' }),
    },
    refresh: refreshOf(session.refresh_token, json),
    // The public keys an edge fetches (docs/adr/0247).
    jwks: { url: `${origin}/.well-known/jwks.json`, method: 'GET' },
    // The refresh again, for its CPU beside refreshBare's (issue 30).
    token: refreshOf(session.refresh_token, json),
  };
  for (const id of ['plan', 'user', 'jwks'] as const) await call(targets[id].url, { headers: targets[id].headers }, 200);
  await call(targets.event.url, { method: 'POST', headers: targets.event.headers, body: targets.event.body }, 200);
  const refreshBare = refreshOf(bare.refresh_token, { 'content-type': 'application/json' });
  const renewed = JSON.parse(
    await call(refreshBare.url, { method: 'POST', headers: refreshBare.headers, body: refreshBare.body }, 200),
  ) as Record<string, unknown>;
  if ('entitlement_token' in renewed) throw new Error('the refresh of a session without a resource carried an entitlement token');
  return {
    targets,
    refreshBare,
    verification: { apiBase: api, resource: DEMO.resourceKey, sessionToken: session.token },
    plansJson,
  };
}
