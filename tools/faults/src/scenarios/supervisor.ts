import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { canConnect, freePort, isAlive } from '@masthead/local-infra';

import { DRILL_ENV, repoRoot, sleep, waitFor } from '../drill.js';
import { readStream } from '../evidence.js';
import { GatewayClient, type Answer } from '../http.js';
import { demoToken, memberPool, openLoop, succeeded, tally } from '../load.js';
import { ScenarioReport, seconds } from '../report.js';

/** What `npm start` wrote about itself (tools/devstack stack-file.ts). */
interface StackFile {
  pid: number;
  api: string;
  env: Record<string, string>;
  metrics: Record<string, string>;
}

/**
 * "`npm start` survives a crash": the real dev stack (tools/devstack, what `npm start` runs) in a
 * temporary data folder. A service gets SIGTERM under load, NATS and the database get SIGKILL;
 * each comes back (on the same port) and says so, requests keep succeeding, the events written
 * while NATS was away leave the outbox by themselves, and only the stack's own SIGTERM stops it,
 * every process with it.
 */
export async function supervisorSurvives(): Promise<ScenarioReport> {
  const report = new ScenarioReport('npm-start-survives');
  const dataDir = await mkdtemp(join(tmpdir(), 'masthead-faults-npm-start-'));
  const port = await freePort();
  let output = '';
  const devstack = spawn(process.execPath, [join(repoRoot, 'tools', 'devstack', 'dist', 'main.js')], {
    cwd: repoRoot,
    // The drills' limits, so that it can register its members; otherwise what `npm start` runs.
    env: { ...process.env, ...DRILL_ENV, PORT: String(port), MASTHEAD_DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => devstack.once('exit', (code) => resolve(code)));
  for (const stream of [devstack.stdout, devstack.stderr]) stream.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  const said = (pattern: RegExp): boolean => pattern.test(output);
  let keep = true;
  try {
    if (!(await waitFor(async () => (said(/Masthead is ready/) ? true : undefined), 180_000, 200)))
      throw new Error(`npm start did not become ready:\n${output}`);
    const stack = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as StackFile;
    const children = async (): Promise<Map<string, number>> => childrenOf(devstack.pid!);
    const client = new GatewayClient([`http://127.0.0.1:${port}`], { timeoutMs: 15_000 });
    const token = await demoToken(client);

    // 1. A service's SIGTERM under load: it comes back, and no request fails.
    const plans = () => ({
      family: 'GET /plans',
      method: 'GET' as const,
      path: '/api/v1/plans?page=1',
      headers: { resource: 'demo-resource' },
    });
    const load = openLoop(client, 75, 20_000, plans);
    await sleep(5_000);
    const catalog = (await children()).get('catalog')!;
    process.kill(catalog, 'SIGTERM');
    const samples = await load;
    const failed = samples.filter((sample) => !succeeded(sample));
    report.note(`${samples.length} requests while catalog got SIGTERM: ${tally(samples)}`);
    report.figure(
      'failed requests around a service SIGTERM',
      `${failed.length} of ${samples.length}`,
      '0 (was 1,009 of 1,501)',
      failed.length === 0,
    );
    report.figure(
      'the restart is logged',
      said(/restarting catalog in \d+ ms/) && said(/catalog runs again/) ? 'yes' : 'no',
      'yes',
      said(/catalog runs again/),
    );

    // 2. NATS killed: it comes back on its port; profile updates made meanwhile wait in the outbox
    // and leave it by themselves.
    const natsUrl = stack.env['NATS_URL']!;
    const before = await countProfileEvents(natsUrl);
    const queuedBefore = await queuedEvents(stack.metrics['identity']!);
    const members = await memberPool(client, 40);
    process.kill((await children()).get('nats-server')!, 'SIGKILL');
    // 200 updates of 40 members, 40 at a time (one member's updates queue on its row otherwise).
    const writes: Answer[] = [];
    for (let start = 0; start < 200; start += members.length) {
      writes.push(
        ...(await Promise.all(
          members.map(({ token: memberToken }, index) =>
            client.api({
              method: 'PUT',
              path: '/api/v1/user',
              headers: { resource: 'demo-resource', token: memberToken },
              json: { city: `Drill ${start + index}` },
            }),
          ),
        )),
      );
    }
    const natsPort = Number(new URL(natsUrl).port);
    await waitFor(async () => ((await canConnect('127.0.0.1', natsPort)) ? true : undefined), 30_000, 50);
    const natsBack = Date.now();
    const all = await waitFor(async () => ((await countProfileEvents(natsUrl)) - before >= 200 ? Date.now() : undefined), 30_000, 100);
    const queued = (await queuedEvents(stack.metrics['identity']!)) - queuedBefore;
    report.note(
      `200 profile updates while NATS restarted: ${tally(writes.map((answer) => ({ ...answer, family: '', sentAt: 0 })))}; ${queued} of their events (profile and access announcements) went through the outbox`,
    );
    report.figure(
      'NATS back on the same port',
      said(/nats runs again/) && (await canConnect('127.0.0.1', natsPort)) ? `yes (${natsPort})` : 'no',
      'yes',
      said(/nats runs again/),
    );
    report.figure(
      'events of the updates on the stream',
      `${(await countProfileEvents(natsUrl)) - before} of ${writes.filter(succeeded).length}`,
      'all, within 10 s of NATS returning',
      all !== undefined && all - natsBack <= 10_000 && writes.every(succeeded),
    );
    if (all !== undefined) report.note(`outbox drained ${seconds(Math.max(0, all - natsBack))} after NATS returned`);

    // 3. The database killed (FerretDB and its PostgreSQL): back by itself, requests succeed again.
    const kids = await children();
    process.kill(kids.get('ferretdb')!, 'SIGKILL');
    process.kill(kids.get('postgres')!, 'SIGKILL');
    const killed = Date.now();
    const recovered = await waitFor(
      async () => {
        const answer = await client.api({
          method: 'PUT',
          path: '/api/v1/user',
          headers: { resource: 'demo-resource', token },
          json: { city: 'Back' },
        });
        return succeeded(answer) ? Date.now() : undefined;
      },
      60_000,
      250,
    );
    report.figure(
      'writes succeed again after the database was killed',
      recovered ? seconds(recovered - killed) : 'never',
      'restarted by the supervisor, ≤ 10 s',
      recovered !== undefined && recovered - killed <= 10_000 && said(/ferretdb runs again/),
    );
    client.close();

    // 4. Only its own SIGTERM stops it, with every process.
    const pids = [...(await children()).values()];
    const stopping = Date.now();
    devstack.kill('SIGTERM');
    const code = await exited;
    const stopMs = Date.now() - stopping;
    await sleep(200);
    const left = pids.filter(isAlive);
    report.figure(
      'stop on its own SIGTERM',
      `${seconds(stopMs)}, exit ${code}, ${left.length} processes left`,
      '≤ 15 s, none left',
      stopMs <= 15_000 && left.length === 0,
    );
    keep = !report.ok;
    return report;
  } finally {
    if (devstack.exitCode === null) {
      devstack.kill('SIGTERM');
      await exited;
    }
    if (keep) console.log(`[faults:npm-start-survives] output:\n${output}\n(data and logs kept in ${dataDir})`);
    else await rm(dataDir, { recursive: true, force: true });
  }
}

/** The dev stack's children by program (catalog, nats-server, ferretdb, postgres…), from /proc. */
async function childrenOf(parent: number): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parent) continue;
      const args = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).split('\0');
      const service = args.find((arg) => /\/(services|gateway)\/.*dist\/main\.js$/.test(arg));
      const name = service ? (service.match(/services\/([^/]+)\//)?.[1] ?? 'gateway') : (args[0]!.split('/').pop() ?? '');
      found.set(name, Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function countProfileEvents(natsUrl: string): Promise<number> {
  return (await readStream(natsUrl, ['masthead.events.user_profile_updated'])).length;
}

/** identity's `masthead_events_total{path="queued"}`: events that went through the outbox. */
async function queuedEvents(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith('masthead_events_total{source="identity",path="queued"}'));
  return line ? Number(line.split(' ').pop()) : 0;
}
