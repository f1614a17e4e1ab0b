import type { ClientRequest, IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:http';
import { subscribe } from 'node:diagnostics_channel';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import { listenOn } from '../service/listen.js';

/**
 * Prometheus metrics of one process (docs/adr/0183): one registry per process, whose families are
 * created once and shared by everything that reports into them (the gRPC server and clients, the
 * outbox, outgoing HTTP to providers, the gateway's routes). Several services in one process (the
 * in-process test stack) share it too, told apart by their labels.
 */
const registry = new Registry();
let defaultsCollected = false;

/** The process's registry, with Node's own metrics (event-loop delay, heap, GC, CPU) in it. */
export function processRegistry(): Registry {
  if (!defaultsCollected) {
    defaultsCollected = true;
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
    watchProviderCalls();
  }
  return registry;
}

/** The family `name`, created on first use (a second service in the process reuses it). */
function family<M extends Metric>(name: string, create: () => M): M {
  return (processRegistry().getSingleMetric(name) as M | undefined) ?? create();
}

// Seconds: from a cached read (sub-millisecond) to a request that used its whole 5 s budget.
const DURATION_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const histogram = (name: string, help: string, labelNames: string[]) =>
  family(name, () => new Histogram({ name, help, labelNames, buckets: DURATION_BUCKETS, registers: [registry] }));
const counter = (name: string, help: string, labelNames: string[]) =>
  family(name, () => new Counter({ name, help, labelNames, registers: [registry] }));

/** The counter and duration histogram of one kind of answer (HTTP request, RPC by side). */
interface SeriesFamily {
  counter: string;
  counterHelp: string;
  histogram: string;
  histogramHelp: string;
  labelNames: string[];
}

/** A counter and a duration histogram of one label set, labelled once. */
interface Series {
  count: { inc(): void };
  duration: { observe(value: number): void };
}

/**
 * The labelled children of every label set seen, by metric and labels: prom-client's `labels()`
 * checks its argument and builds the child anew on every call, once per request, RPC and event
 * otherwise. Label sets are bounded (route templates, RPC methods, status codes, sources).
 */
const children = new Map<string, unknown>();

function labelledOnce<T>(metric: string, labelValues: readonly string[], label: () => T): T {
  const key = [metric, ...labelValues].join('\u0000');
  let child = children.get(key) as T | undefined;
  if (child === undefined) {
    child = label();
    children.set(key, child);
  }
  return child;
}

function seriesOf(family: SeriesFamily, labelValues: string[]): Series {
  return labelledOnce(family.counter, labelValues, () => {
    const labels = Object.fromEntries(family.labelNames.map((name, index) => [name, labelValues[index]!]));
    return {
      count: counter(family.counter, family.counterHelp, family.labelNames).labels(labels),
      duration: histogram(family.histogram, family.histogramHelp, family.labelNames).labels(labels),
    };
  });
}

const HTTP_REQUESTS: SeriesFamily = {
  counter: 'masthead_http_requests_total',
  counterHelp: 'HTTP requests answered, by route template and status',
  histogram: 'masthead_http_request_duration_seconds',
  histogramHelp: 'HTTP request duration, by route template and status',
  labelNames: ['method', 'route', 'status'],
};

const rpcFamily = (side: 'server' | 'client'): SeriesFamily => ({
  counter: `masthead_grpc_${side}_handled_total`,
  counterHelp: `gRPC calls ${side === 'server' ? 'served' : 'made'}, by method and status code`,
  histogram: `masthead_grpc_${side}_duration_seconds`,
  histogramHelp: `gRPC call duration (${side} side), by method and status code`,
  labelNames: ['method', 'code'],
});
const RPCS = { server: rpcFamily('server'), client: rpcFamily('client') };

/** One answered HTTP request of the gateway: `route` is the route's template, never the raw path. */
export function observeHttpRequest(method: string, route: string, status: number, seconds: number): void {
  const series = seriesOf(HTTP_REQUESTS, [method, route, String(status)]);
  series.count.inc();
  series.duration.observe(seconds);
}

/** One RPC, served (`side` server) or made (`side` client); `code` is the gRPC status name. */
export function observeRpc(side: 'server' | 'client', method: string, code: string, seconds: number): void {
  const series = seriesOf(RPCS[side], [method, code]);
  series.count.inc();
  series.duration.observe(seconds);
}

/** Reports the outbox of one service (`source`) at every scrape. */
export function watchOutbox(source: string, read: () => Promise<{ pending: number; oldestAgeSeconds: number }>): void {
  outboxReaders.set(source, read);
  family(
    'masthead_outbox_pending_events',
    () =>
      new Gauge({
        name: 'masthead_outbox_pending_events',
        help: 'Events waiting in the outbox for JetStream (prepared ones included)',
        labelNames: ['source'],
        registers: [registry],
        collect: collectOutbox,
      }),
  );
}

const outboxReaders = new Map<string, () => Promise<{ pending: number; oldestAgeSeconds: number }>>();

/** One read per scrape fills both gauges; an outbox that cannot be read (database away) reports -1. */
async function collectOutbox(this: Gauge): Promise<void> {
  const age = family(
    'masthead_outbox_oldest_event_age_seconds',
    () =>
      new Gauge({
        name: 'masthead_outbox_oldest_event_age_seconds',
        help: 'Age of the oldest event in the outbox; 0 when it is empty',
        labelNames: ['source'],
        registers: [registry],
      }),
  );
  await Promise.all(
    [...outboxReaders].map(async ([source, read]) => {
      const stats = await read().catch(() => ({ pending: -1, oldestAgeSeconds: -1 }));
      this.labels({ source }).set(stats.pending);
      age.labels({ source }).set(stats.oldestAgeSeconds);
    }),
  );
}

/** Counts one event handed to JetStream: `path` direct (at once) or relayed (from the outbox), or queued. */
export function countEvent(source: string, path: 'direct' | 'queued' | 'relayed' | 'notified', events = 1): void {
  const name = 'masthead_events_total';
  labelledOnce(name, [source, path], () =>
    counter(name, 'Events published at once, queued in the outbox, relayed from it, or sent as notifications', ['source', 'path']).labels({
      source,
      path,
    }),
  ).inc(events);
}

/**
 * Outgoing HTTP calls, which are the provider calls (card provider, identity provider, IP
 * location, mail and CRM providers: internal traffic is gRPC, MongoDB and NATS wire protocols),
 * observed through Node's diagnostics channels so that no client library needs wrapping:
 * `masthead_provider_calls_total{host, outcome}` with outcome 2xx…5xx or error.
 */
function watchProviderCalls(): void {
  const calls = () => counter('masthead_provider_calls_total', 'Outgoing HTTP calls by host and outcome', ['host', 'outcome']);
  const durations = () =>
    histogram('masthead_provider_call_duration_seconds', 'Outgoing HTTP call duration by host and outcome', ['host', 'outcome']);
  const done = (host: string, outcome: string, started: bigint): void => {
    calls().labels({ host, outcome }).inc();
    durations()
      .labels({ host, outcome })
      .observe(Number(process.hrtime.bigint() - started) / 1e9);
  };
  const statusClass = (status: number | undefined): string => (status ? `${Math.floor(status / 100)}xx` : 'error');

  subscribe('http.client.request.start', (message) => {
    const request = (message as { request: ClientRequest }).request;
    const started = process.hrtime.bigint();
    const host = request.host ?? 'unknown';
    let settled = false;
    const settle = (outcome: string): void => {
      if (settled) return;
      settled = true;
      done(host, outcome, started);
    };
    request.once('response', (response: IncomingMessage) => {
      response.once('end', () => settle(statusClass(response.statusCode)));
      response.once('close', () => settle(statusClass(response.statusCode)));
    });
    request.once('error', () => settle('error'));
  });

  // fetch (undici): the request object is the key from creation to headers or error.
  const undiciStarts = new WeakMap<object, bigint>();
  const undiciHost = (request: { origin?: unknown }): string => {
    try {
      return new URL(String(request.origin)).hostname;
    } catch {
      return 'unknown';
    }
  };
  subscribe('undici:request:create', (message) => {
    undiciStarts.set((message as { request: object }).request, process.hrtime.bigint());
  });
  subscribe('undici:request:headers', (message) => {
    const { request, response } = message as { request: { origin?: unknown }; response: { statusCode?: number } };
    const started = undiciStarts.get(request);
    if (started !== undefined) done(undiciHost(request), statusClass(response.statusCode), started);
    undiciStarts.delete(request);
  });
  subscribe('undici:request:error', (message) => {
    const { request } = message as { request: { origin?: unknown } };
    const started = undiciStarts.get(request);
    if (started !== undefined) done(undiciHost(request), 'error', started);
    undiciStarts.delete(request);
  });
}

/** `GET /metrics` in the Prometheus text format, for an express app or the listener below. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  const metricsRegistry = processRegistry();
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** A small HTTP listener that answers `GET /metrics` (a service's; the gateway uses its own port). */
export async function startMetricsServer(port: number, host: string): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    renderMetrics().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  await listenOn(server, port, host);
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
