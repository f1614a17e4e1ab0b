import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '@masthead/service-testkit';

/** One request a fake provider received, as the test asserts on it. */
export interface FakeCall {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON, the form as a record, or the text; undefined when empty. */
  body: unknown;
}

export interface FakeAnswer {
  status: number;
  /** JSON unless it is a string; none when undefined. */
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * A fault the next matching requests meet instead of (or before) the provider's own answer: an
 * answer of their own (a 429, a 503), or a delay (a missed deadline).
 */
export interface Fault {
  /** How many requests it applies to. */
  count: number;
  answer?: (call: FakeCall) => FakeAnswer;
  delayMs?: number;
  /** Only requests it returns true for; every request when absent. */
  match?: (call: FakeCall) => boolean;
}

export interface FakeProviderServer {
  /** `http://127.0.0.1:<port>`: the *_API_BASE of the stack under test. */
  url: string;
  /** Every request, in order (faulted ones included). */
  calls: FakeCall[];
  /** Arms a fault for the next matching requests. */
  fault(fault: Fault): void;
  stop(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return undefined;
  if ((req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const send = (res: ServerResponse, answer: FakeAnswer) => {
  if (res.destroyed) return;
  const headers: Record<string, string> = { ...answer.headers };
  if (answer.body === undefined) return void res.writeHead(answer.status, headers).end();
  headers['content-type'] ??= 'application/json; charset=utf-8';
  res.writeHead(answer.status, headers).end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
};

/**
 * The plumbing the fake providers share: a loopback server on a free port that records each
 * request, applies armed faults, and otherwise answers with `route` (the provider's documented
 * behaviour over its in-memory state). `stop()` drops open connections.
 */
export async function startFakeProviderServer(route: (call: FakeCall) => FakeAnswer): Promise<FakeProviderServer> {
  const calls: FakeCall[] = [];
  const faults: Fault[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const call: FakeCall = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: await readBody(req),
      };
      calls.push(call);
      const fault = faults.find((candidate) => candidate.count > 0 && (candidate.match?.(call) ?? true));
      if (fault) fault.count--;
      if (fault?.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      send(res, fault?.answer ? fault.answer(call) : route(call));
    })().catch((error: unknown) => send(res, { status: 500, body: { message: String(error) } }));
  });
  const listener = await listenOnLoopback(server);
  return {
    url: listener.url,
    calls,
    fault: (fault) => void faults.push({ ...fault }),
    stop: listener.close,
  };
}

/** What a rate limit applies to, and the wait it asks for. */
export interface RateLimitOptions {
  /** Retry-After seconds (the list manager sends X-RateLimit-Reset instead). */
  retryAfterSeconds?: number;
  match?: (call: FakeCall) => boolean;
}

/**
 * Arms the provider's own 429 (`answer`) for the next `count` matching requests, with the wait in
 * `header` (Retry-After, or the provider's reset header) when one is asked for.
 */
export function armRateLimit(
  server: FakeProviderServer,
  count: number,
  { retryAfterSeconds, match }: RateLimitOptions,
  answer: () => FakeAnswer,
  header = 'retry-after',
): void {
  server.fault({
    count,
    match,
    answer: () => {
      const limited = answer();
      if (retryAfterSeconds === undefined) return limited;
      return { ...limited, headers: { ...limited.headers, [header]: String(retryAfterSeconds) } };
    },
  });
}

/** Routes `METHOD /path/:param` patterns to handlers; the first match answers. */
export function router(
  routes: Array<[string, (call: FakeCall, params: string[]) => FakeAnswer]>,
  notFound: (call: FakeCall) => FakeAnswer,
) {
  const compiled = routes.map(([pattern, handler]) => {
    const [method, path] = pattern.split(' ') as [string, string];
    const regex = new RegExp(`^${path.replace(/:[a-z]+/gi, '([^/]+)')}$`);
    return { method, regex, handler };
  });
  return (call: FakeCall): FakeAnswer => {
    for (const { method, regex, handler } of compiled) {
      const match = call.method === method ? regex.exec(call.path) : null;
      if (match) return handler(call, match.slice(1).map(decodeURIComponent));
    }
    return notFound(call);
  };
}

/** An object body as a record; `{}` otherwise. */
export const bodyObject = (call: FakeCall): Record<string, unknown> =>
  call.body !== null && typeof call.body === 'object' && !Array.isArray(call.body) ? (call.body as Record<string, unknown>) : {};

/** A random lowercase hex ID, as the providers hand them out. */
export const hexId = (length = 10): string => Array.from({ length }, () => Math.floor(Math.random() * 16).toString(16)).join('');

/** Offset pagination as the providers apply it: `count`/`limit` (default, maximum) and `offset`. */
export function page<T>(items: T[], call: FakeCall, sizeParam: string, defaultSize: number, maxSize: number): T[] {
  const size = Math.min(Math.max(Number(call.query.get(sizeParam) ?? defaultSize) || defaultSize, 1), maxSize);
  const offset = Math.max(Number(call.query.get('offset') ?? 0) || 0, 0);
  return items.slice(offset, offset + size);
}
