import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { canConnect } from '@masthead/local-infra';

import { percentile, sleep, startDrill, waitFor } from '../drill.js';
import { GatewayClient, isEnvelope } from '../http.js';
import { demoToken, memberPool, mixedRequests, openLoop, succeeded, tally, type Sample } from '../load.js';
import { ScenarioReport, seconds } from '../report.js';
import { SERVICE_NAMES } from './names.js';

const RATE = 40;
const BEFORE_MS = 8_000;
const OUTAGE_MS = 20_000;
const AFTER_MS = 20_000;
const DEADLINE_MS = 5_000;

/**
 * "Database outage": FerretDB and the PostgreSQL under it are killed (SIGKILL) under load and kept
 * down for 20 s. Every request answers 2xx (from a cache) or 503 `service_unavailable` in the
 * envelope within the gRPC deadline + 1 s; no 500, no 504, no hang. Once the database is back,
 * every route family succeeds again within 10 s, with no service restarted.
 */
export async function databaseOutage(): Promise<ScenarioReport> {
  const report = new ScenarioReport('database-outage');
  const drill = await startDrill('database');
  let keep = true;
  try {
    const client = new GatewayClient(drill.stack.origins, { timeoutMs: 15_000 });
    const token = await demoToken(client);
    let killedAt = Number.POSITIVE_INFINITY;
    let backAt = Number.POSITIVE_INFINITY;

    const load = openLoop(client, RATE, BEFORE_MS + OUTAGE_MS + AFTER_MS, mixedRequests(token, { signIns: await memberPool(client, 60) }));
    await sleep(BEFORE_MS);
    const ferretdb = drill.process('ferretdb');
    const postgresPid = Number(
      (await readFile(join(drill.config.dataDir, 'ferretdb', 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0],
    );
    drill.supervisor.hold('ferretdb');
    killedAt = Date.now();
    process.kill(ferretdb.pid, 'SIGKILL');
    process.kill(postgresPid, 'SIGKILL');
    drill.log(`ferretdb (pid ${ferretdb.pid}) and postgres (pid ${postgresPid}) killed; down for ${seconds(OUTAGE_MS)}`);
    await sleep(OUTAGE_MS);
    drill.supervisor.release('ferretdb');
    await waitFor(
      async () =>
        drill.supervisor.processOf('ferretdb') && (await canConnect('127.0.0.1', drill.stack.infra.ferretdb.port)) ? true : undefined,
      60_000,
    );
    backAt = Date.now();
    drill.log('database back');
    const samples = await load;
    client.close();

    const during = samples.filter((sample) => sample.sentAt >= killedAt && sample.sentAt + sample.ms < backAt);
    const outageAnswer = (sample: Sample): boolean =>
      succeeded(sample) || (sample.status === 503 && isEnvelope(sample.body, 'service_unavailable'));
    const wrong = during.filter((sample) => !outageAnswer(sample));
    const unavailable = during.filter((sample) => sample.status === 503).map((sample) => sample.ms);
    report.note(`during the outage: ${during.length} requests, ${tally(during)}`);
    if (wrong.length > 0)
      report.note(
        `first unexpected answers: ${wrong
          .slice(0, 3)
          .map((sample) => `${sample.family} ${sample.status || sample.error} ${sample.text.slice(0, 120)}`)
          .join(' | ')}`,
      );
    report.figure('answers other than 2xx or 503 in the envelope', wrong.length, '0 (no 500, 504 or hang)', wrong.length === 0);
    const slowest = Math.max(0, ...during.map((sample) => sample.ms));
    report.figure(
      '503 latency (median / max)',
      `${seconds(percentile(unavailable, 50))} / ${seconds(Math.max(0, ...unavailable))}`,
      `max ≤ deadline + 1 s = ${seconds(DEADLINE_MS + 1_000)}`,
      slowest <= DEADLINE_MS + 1_000 && unavailable.length > 0,
    );

    // Recovery: per route family, the first moment after which every answer succeeded.
    const after = samples.filter((sample) => sample.sentAt >= backAt);
    const families = [...new Set(samples.map((sample) => sample.family))];
    const recoveredAt = families.map((family) => {
      const ofFamily = after.filter((sample) => sample.family === family).sort((a, b) => a.sentAt - b.sentAt);
      const lastFailure = ofFamily.filter((sample) => !succeeded(sample)).at(-1);
      return lastFailure ? lastFailure.sentAt + lastFailure.ms : backAt;
    });
    const recovery = Math.max(...recoveredAt) - backAt;
    report.note(`after the database returned: ${after.length} requests, ${tally(after)}`);
    report.figure('recovery after the database returned', seconds(recovery), '≤ 10 s', recovery <= 10_000 && after.some(succeeded));
    const restarted = SERVICE_NAMES.filter((name) => drill.exits.has(name));
    report.figure('services restarted', restarted.length === 0 ? 'none' : restarted.join(', '), 'none', restarted.length === 0);
    keep = !report.ok;
    return report;
  } finally {
    await drill.stop(keep);
  }
}
