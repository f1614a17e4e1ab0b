import { checkHealth } from '@masthead/core/grpc';

import { percentile, sleep, startDrill, waitFor, type Drill } from '../drill.js';
import { GatewayClient } from '../http.js';
import { closedLoop, lightRequests, memberPool, openLoop, succeeded, tally } from '../load.js';
import { ScenarioReport } from '../report.js';

const WARM_UP_MS = 5_000;
const SETTLE_MS = 2_000;
const CAPACITY_CONNECTIONS = 32;
const CAPACITY_MS = 10_000;
// Long enough for every process's hot paths to be compiled and its caches filled.
const CAPACITY_WARM_UP_MS = 10_000;
// A restarting replica's boot takes CPU from the others: offer at most 70 % of what all replicas
// carry, so that a machine too busy for the rate measures draining, not overload.
const HEADROOM = 0.7;
/** Members whose requests the mix interleaves. */
const MEMBERS = 20;

/**
 * "Rolling restart": two replicas of every service and two gateways, under `rate` requests per
 * second; every process gets SIGTERM in turn (the next once its successor is ready). Services
 * drain (readiness off, running calls finish, GOAWAY) and gRPC clients wait for a ready replica;
 * gateways answer /readyz 503 first, keep serving for SHUTDOWN_DELAY_MS, and the client (as a
 * load balancer would) follows readiness and sends an idempotent request again on another
 * connection when one died. Requirement: 0 failed client requests.
 */
export async function rollingRestart(options: { rate: number }): Promise<ScenarioReport> {
  const report = new ScenarioReport('rolling-restart');
  const drill = await startDrill('rolling', { replicas: 2, env: { SHUTDOWN_DELAY_MS: '1500' } });
  let keep = true;
  try {
    const client = new GatewayClient(drill.stack.origins, { timeoutMs: 15_000, retryIdempotent: true });
    client.watchReadiness();
    const tokens = (await memberPool(client, MEMBERS)).map(({ token }) => token);
    // What this machine serves without faults: a busy shared machine may not carry the rate asked
    // for, and then the drill offers half of what it can (and says so) rather than measure overload.
    await closedLoop(client, CAPACITY_CONNECTIONS, CAPACITY_WARM_UP_MS, lightRequests(tokens));
    const capacity =
      (await closedLoop(client, CAPACITY_CONNECTIONS, CAPACITY_MS, lightRequests(tokens))).filter(succeeded).length / (CAPACITY_MS / 1000);
    const rate = Math.min(options.rate, Math.floor(capacity * HEADROOM));
    report.note(`capacity without faults: ${capacity.toFixed(0)} requests/s; offering ${rate}/s`);
    const order = [...drill.stack.topology.services, ...drill.stack.topology.gateways];
    const restartsMs = order.length * 6_000;
    const load = openLoop(client, rate, WARM_UP_MS + restartsMs, lightRequests(tokens));

    await sleep(WARM_UP_MS);
    const restarted: string[] = [];
    for (const spec of order) {
      const before = drill.process(spec.name);
      process.kill(before.pid, 'SIGTERM');
      const ready = await waitFor(async () => ((await isReady(drill, spec.name, before.pid)) ? true : undefined), 30_000, 100);
      if (!ready) drill.log(`${spec.name} was not ready again within 30 s`);
      else restarted.push(spec.name);
      await sleep(SETTLE_MS);
    }
    const samples = await load;
    client.close();

    const failed = samples.filter((sample) => !succeeded(sample));
    const span = (Math.max(...samples.map((sample) => sample.sentAt)) - Math.min(...samples.map((sample) => sample.sentAt))) / 1000;
    report.note(
      `${samples.length} requests over ${span.toFixed(0)} s (${(samples.length / span).toFixed(0)}/s offered): ${tally(samples)}`,
    );
    report.note(
      `retried on another connection: ${samples.filter((sample) => sample.retried).length}; p50 ${percentile(
        samples.map((s) => s.ms),
        50,
      ).toFixed(0)} ms, p99 ${percentile(
        samples.map((s) => s.ms),
        99,
      ).toFixed(0)} ms`,
    );
    if (failed.length > 0)
      report.note(
        `first failures: ${failed
          .slice(0, 5)
          .map((sample) => `${sample.family} ${sample.status || sample.error} ${sample.text.slice(0, 100)}`)
          .join(' | ')}`,
      );
    report.figure('processes restarted in turn', `${restarted.length} of ${order.length}`, 'all', restarted.length === order.length);
    report.figure('failed client requests', `${failed.length} of ${samples.length}`, '0', failed.length === 0);
    report.figure(
      'request rate offered',
      `${(samples.length / span).toFixed(0)}/s`,
      `${options.rate}/s`,
      samples.length / span >= options.rate * 0.9,
    );
    keep = !report.ok;
    return report;
  } finally {
    await drill.stop(keep);
  }
}

/** The process runs again under a new PID and answers: its gRPC health check, or a gateway's /readyz. */
async function isReady(drill: Drill, name: string, oldPid: number): Promise<boolean> {
  const current = drill.supervisor.processOf(name);
  if (!current || current.pid === oldPid) return false;
  const spec = [...drill.stack.topology.services, ...drill.stack.topology.gateways].find((candidate) => candidate.name === name)!;
  if (spec.env['GRPC_LISTEN']) return checkHealth(spec.env['GRPC_LISTEN'], 1000);
  const response = await fetch(`http://127.0.0.1:${spec.env['PORT']}/readyz`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
  return response?.status === 200;
}
