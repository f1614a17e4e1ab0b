import { request as httpRequest, createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countEvent, observeRpc, startMetricsServer, type MetricsServer } from '../src/metrics/index.js';

/** The value of one series in the Prometheus text, or undefined. */
const valueOf = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('process metrics', () => {
  let metrics: MetricsServer;
  let provider: Server;
  let providerPort = 0;
  beforeAll(async () => {
    metrics = await startMetricsServer(0, '127.0.0.1');
    // A stand-in for a provider's API: 201 on /ok, 503 elsewhere.
    provider = createServer((req, res) => res.writeHead(req.url === '/ok' ? 201 : 503).end('{}'));
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    providerPort = (provider.address() as { port: number }).port;
  });
  afterAll(async () => {
    await metrics.close();
    await new Promise((resolve) => provider.close(resolve));
  });

  const scrape = async (): Promise<string> => {
    const response = await fetch(`http://127.0.0.1:${metrics.port}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    return response.text();
  };

  it('serves RPC counts and durations with Node runtime metrics such as the event-loop delay', async () => {
    observeRpc('server', 'masthead.test.v1.Probe/Ping', 'OK', 0.003);
    observeRpc('server', 'masthead.test.v1.Probe/Ping', 'UNAVAILABLE', 2.1);
    const text = await scrape();
    expect(valueOf(text, 'masthead_grpc_server_handled_total{method="masthead.test.v1.Probe/Ping",code="OK"}')).toBe(1);
    expect(valueOf(text, 'masthead_grpc_server_handled_total{method="masthead.test.v1.Probe/Ping",code="UNAVAILABLE"}')).toBe(1);
    expect(
      valueOf(text, 'masthead_grpc_server_duration_seconds_bucket{le="2.5",method="masthead.test.v1.Probe/Ping",code="UNAVAILABLE"}'),
    ).toBe(1);
    expect(valueOf(text, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
    expect((await fetch(`http://127.0.0.1:${metrics.port}/other`)).status).toBe(404);
  });

  it('counts events by source and path, each label set apart', async () => {
    countEvent('probe', 'direct');
    countEvent('probe', 'direct');
    countEvent('probe', 'queued');
    const text = await scrape();
    expect(valueOf(text, 'masthead_events_total{source="probe",path="direct"}')).toBe(2);
    expect(valueOf(text, 'masthead_events_total{source="probe",path="queued"}')).toBe(1);
    expect(valueOf(text, 'masthead_events_total{source="probe",path="relayed"}')).toBeUndefined();
  });

  it('counts outgoing HTTP calls (provider calls) by host and outcome, over http and fetch', async () => {
    // The scrapes are outgoing calls of this process too (one 2xx each): count differences.
    const series = (outcome: string) => `masthead_provider_calls_total{host="127.0.0.1",outcome="${outcome}"}`;
    const before = await scrape();
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: providerPort, path: '/ok' }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });
    await (await fetch(`http://127.0.0.1:${providerPort}/down`)).text();
    // A port nothing listens on any more: the connection is refused.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    await fetch(`http://127.0.0.1:${closedPort}/refused`).catch(() => undefined);
    const text = await scrape();
    const delta = (outcome: string) => (valueOf(text, series(outcome)) ?? 0) - (valueOf(before, series(outcome)) ?? 0);
    // 2xx: the http.request and the scrape before this one.
    expect([delta('2xx'), delta('5xx'), delta('error')]).toEqual([2, 1, 1]);
  });
});
