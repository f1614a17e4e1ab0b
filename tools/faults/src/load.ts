import type { Answer, GatewayClient, RequestSpec } from './http.js';

/** One request of a load run: what was sent, when, and how it was answered. */
export interface Sample extends Answer {
  family: string;
  /** Milliseconds since the epoch when it was sent. */
  sentAt: number;
}

export type RequestFactory = (index: number) => RequestSpec & { family: string };

const TICK_MS = 10;

/**
 * Open loop: sends `rate` requests per second for `durationMs`, whatever the answers take (a
 * slow or dead server piles requests up, as real clients would), and resolves with every sample
 * once all are answered. `onSample` sees each as it completes.
 */
export async function openLoop(
  client: GatewayClient,
  rate: number,
  durationMs: number,
  next: RequestFactory,
  onSample?: (sample: Sample) => void,
): Promise<Sample[]> {
  const started = Date.now();
  const pending: Promise<Sample>[] = [];
  let issued = 0;
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const elapsed = Date.now() - started;
      const due = Math.min(Math.floor((elapsed / 1000) * rate), Math.floor((durationMs / 1000) * rate));
      while (issued < due) pending.push(send(client, next(issued++), onSample));
      if (elapsed >= durationMs) resolve();
      else setTimeout(tick, TICK_MS);
    };
    tick();
  });
  return Promise.all(pending);
}

/** Closed loop: `connections` callers, each sending its next request when the last is answered. */
export async function closedLoop(client: GatewayClient, connections: number, durationMs: number, next: RequestFactory): Promise<Sample[]> {
  const until = Date.now() + durationMs;
  const samples: Sample[] = [];
  let index = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) samples.push(await send(client, next(index++)));
    }),
  );
  return samples;
}

async function send(client: GatewayClient, spec: RequestSpec & { family: string }, onSample?: (sample: Sample) => void): Promise<Sample> {
  const sentAt = Date.now();
  const sample = { ...(await client.api(spec, { successBody: false })), family: spec.family, sentAt };
  onSample?.(sample);
  return sample;
}

export const succeeded = (sample: Answer): boolean => !sample.error && sample.status >= 200 && sample.status < 300;

/** `{status or error: count}`, for a note. */
export function tally(samples: readonly Sample[]): string {
  const counts = new Map<string, number>();
  for (const sample of samples) {
    const key = sample.error ? `error ${sample.error}` : String(sample.status);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts]
    .sort()
    .map(([key, value]) => `${key}: ${value}`)
    .join(', ');
}

/** Signs the demo member in and returns its session token (the demo fixture's member). */
export async function demoToken(client: GatewayClient): Promise<string> {
  const answer = await client.api({
    method: 'POST',
    path: '/api/v1/authorization',
    headers: { resource: 'demo-resource' },
    json: { email: 'member@demo.test', password: 'Demo-password-1' },
  });
  const token = (answer.body as { token?: unknown } | undefined)?.token;
  if (answer.status !== 200 || typeof token !== 'string') throw new Error(`demo sign-in failed: ${answer.status} ${answer.text}`);
  return token;
}

const POOL_PASSWORD = 'drill-password-1';

/**
 * Registers `size` members for sign-ins: one account takes one sign-in at a time (a parallel one
 * answers 429, docs/adr/0091), so the drills sign members in turn.
 */
export async function memberPool(client: GatewayClient, size: number): Promise<Array<{ email: string; token: string }>> {
  const run = Math.random().toString(36).slice(2, 8);
  const emails = Array.from({ length: size }, (_, index) => `pool-${run}-${index}@faults.test`);
  const members: Array<{ email: string; token: string }> = [];
  for (let start = 0; start < emails.length; start += 10) {
    await Promise.all(
      emails.slice(start, start + 10).map(async (email) => {
        const answer = await client.api({
          method: 'POST',
          path: '/api/v1/registration',
          headers: { resource: 'demo-resource' },
          json: { email, password: POOL_PASSWORD },
        });
        const token = (answer.body as { token?: unknown } | undefined)?.token;
        if (answer.status !== 201 || typeof token !== 'string')
          throw new Error(`registering ${email} failed: ${answer.status} ${answer.text}`);
        members.push({ email, token });
      }),
    );
  }
  return members;
}

/** The mix of route families the drills send: guest and member reads, a write, sign-ins of `signIns` in turn. */
export function mixedRequests(token: string, options: { signIns?: ReadonlyArray<{ email: string }> } = {}): RequestFactory {
  const members = (options.signIns ?? []).map(({ email }) => email);
  const guest = { resource: 'demo-resource' };
  const member = { ...guest, token };
  const families: Array<(index: number) => RequestSpec & { family: string }> = [
    () => ({ family: 'GET /plans', method: 'GET', path: '/api/v1/plans?page=1', headers: guest }),
    () => ({ family: 'GET /user', method: 'GET', path: '/api/v1/user', headers: member }),
    () => ({ family: 'GET /plans', method: 'GET', path: '/api/v1/plans?page=1', headers: guest }),
    () => ({ family: 'GET /languages', method: 'GET', path: '/api/v1/languages?page=1', headers: guest }),
    (index) => ({ family: 'PUT /user', method: 'PUT', path: '/api/v1/user', headers: member, json: { city: `City ${index % 97}` } }),
    () => ({ family: 'GET /user', method: 'GET', path: '/api/v1/user', headers: member }),
    () => ({ family: 'GET /user/extra/data', method: 'GET', path: '/api/v1/user/extra/data', headers: member }),
    ...(members.length > 0
      ? [
          (index: number) => ({
            family: 'POST /authorization',
            method: 'POST' as const,
            path: '/api/v1/authorization',
            headers: guest,
            json: { email: members[Math.floor(index / 8) % members.length], password: POOL_PASSWORD },
          }),
        ]
      : []),
  ];
  return (index) => families[index % families.length]!(index);
}

/**
 * The rolling-restart mix: reads of every kind (guest, member, cached and not) and a write, at a
 * cost two busy cores can carry at 200 requests/s (no password hashing). Each run of ten requests
 * is one member's (in turn over `tokens`), as traffic from many members is: a member's write drops
 * that member's cached session check and profile, not everyone's.
 */
export function lightRequests(tokens: readonly string[]): RequestFactory {
  const guest = { resource: 'demo-resource' };
  const member = (index: number) => ({ ...guest, token: tokens[Math.floor(index / families.length) % tokens.length]! });
  const families: Array<(index: number) => RequestSpec & { family: string }> = [
    () => ({ family: 'GET /plans', method: 'GET', path: '/api/v1/plans?page=1', headers: guest }),
    () => ({ family: 'GET /languages', method: 'GET', path: '/api/v1/languages?page=1', headers: guest }),
    (index) => ({ family: 'GET /user', method: 'GET', path: '/api/v1/user', headers: member(index) }),
    () => ({ family: 'GET /plans', method: 'GET', path: '/api/v1/plans?page=1', headers: guest }),
    () => ({ family: 'GET /countries', method: 'GET', path: '/api/v1/countries?page=1', headers: guest }),
    (index) => ({ family: 'GET /user/extra/data', method: 'GET', path: '/api/v1/user/extra/data', headers: member(index) }),
    () => ({ family: 'GET /plans', method: 'GET', path: '/api/v1/plans?page=1', headers: guest }),
    (index) => ({ family: 'GET /user', method: 'GET', path: '/api/v1/user', headers: member(index) }),
    () => ({ family: 'GET /languages', method: 'GET', path: '/api/v1/languages?page=1', headers: guest }),
    (index) => ({
      family: 'PUT /user',
      method: 'PUT',
      path: '/api/v1/user',
      headers: member(index),
      json: { city: `City ${index % 97}` },
    }),
  ];
  return (index) => families[index % families.length]!(index);
}
