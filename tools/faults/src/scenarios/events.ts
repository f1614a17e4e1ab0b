import { randomBytes } from 'node:crypto';

import { canConnect } from '@masthead/local-infra';

import { startDrill, sleep, waitFor, type Drill } from '../drill.js';
import { outboxBacklog, readStream, withDatabase, type StreamedEvent } from '../evidence.js';
import { GatewayClient } from '../http.js';
import { ScenarioReport, seconds } from '../report.js';

export interface EventsOptions {
  writes: number;
  natsDownMs: number;
  workers: number;
}

const SUBJECTS = ['masthead.events.user_signup', 'masthead.events.user_profile_updated', 'masthead.events.user_extra_data_updated'];
// Longer than any write of the drill may take; prepared events of dead processes wait this long.
const PREPARED_GRACE_MS = 5_000;
const PASSWORD = 'drill-password-1';

/**
 * "Events never lost": writes that emit events (registrations, profile updates, extra data)
 * while nats-server is killed and kept down, and the writing service (identity) is killed with
 * SIGKILL at random moments. Then every committed write (read from the database) must have its
 * event on the stream, no event may lack its write, and duplicates must share a message ID.
 */
export async function eventsNeverLost(options: EventsOptions): Promise<ScenarioReport> {
  const report = new ScenarioReport('events-never-lost');
  const drill = await startDrill('events', { env: { OUTBOX_PREPARED_GRACE_MS: String(PREPARED_GRACE_MS) } });
  let keep = true;
  try {
    const run = randomBytes(3).toString('hex');
    const client = new GatewayClient(drill.stack.origins, { timeoutMs: 20_000 });
    const api = '/api/v1';
    const headers = { resource: 'demo-resource' };
    let attempts = 0;
    let nextUser = 0;
    let workloadDone = false;
    const statuses = new Map<string, number>();
    // Writes answered while NATS is down: a service (re)started meanwhile must serve them too.
    let natsDown = false;
    const duringOutage = { requests: 0, succeeded: 0 };
    const count = (key: string): void => {
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (!natsDown) return;
      duringOutage.requests++;
      if (/ 2\d\d$/.test(key)) duringOutage.succeeded++;
    };

    const worker = async (): Promise<void> => {
      while (attempts < options.writes) {
        const user = nextUser++;
        attempts++;
        const registered = await client.api({
          method: 'POST',
          path: `${api}/registration`,
          headers,
          json: { email: `drill-${run}-${user}@faults.test`, password: PASSWORD },
        });
        count(`registration ${registered.status || registered.error}`);
        const token = (registered.body as { token?: unknown } | undefined)?.token;
        if (registered.status !== 201 || typeof token !== 'string') continue;
        const member = { ...headers, token };
        attempts++;
        const profile = await client.api({ method: 'PUT', path: `${api}/user`, headers: member, json: { first_name: `F${user}` } });
        count(`profile ${profile.status || profile.error}`);
        if (attempts >= options.writes) break;
        attempts++;
        const extra = await client.api({
          method: 'PUT',
          path: `${api}/user/extra/data`,
          headers: member,
          json: { extra_groups: [{ group_key: 'drill', field_key: 'k', field_value: `v${user}` }] },
        });
        count(`extra ${extra.status || extra.error}`);
      }
    };

    const started = Date.now();
    const workload = Promise.all(Array.from({ length: options.workers }, worker)).finally(() => {
      workloadDone = true;
    });

    // The writing service dies at random moments for as long as the writes go on.
    let kills = 0;
    const killer = (async () => {
      while (!workloadDone) {
        await sleep(8_000 + Math.random() * 12_000);
        if (workloadDone) break;
        const identity = drill.supervisor.processOf('identity');
        if (!identity) continue;
        process.kill(identity.pid, 'SIGKILL');
        kills++;
      }
    })();

    // NATS goes down 10 s in, for natsDownMs, then comes back on its port.
    await sleep(10_000);
    const nats = drill.process('nats');
    drill.supervisor.hold('nats');
    process.kill(nats.pid, 'SIGKILL');
    natsDown = true;
    drill.log(`nats killed (pid ${nats.pid}); kept down for ${seconds(options.natsDownMs)}`);
    await sleep(options.natsDownMs);
    natsDown = false;
    const backlogBefore = await outboxBacklog(drill.stack.infra.ferretdb.url, ['identity', 'catalog']).catch(() => ({
      all: -1,
      ready: -1,
    }));
    drill.supervisor.release('nats');
    const natsPort = drill.stack.infra.nats.port;
    await waitFor(() => canConnect('127.0.0.1', natsPort).then((up) => (up ? true : undefined)), 30_000);
    const natsBack = Date.now();
    drill.log(`nats back on port ${natsPort}; ${backlogBefore.ready} events waiting in the outboxes`);
    // "Drained": no event that is ready to go is left (prepared ones belong to writes under way).
    const drained = await waitFor(
      async () => ((await outboxBacklog(drill.stack.infra.ferretdb.url, ['identity', 'catalog'])).ready === 0 ? Date.now() : undefined),
      60_000,
      100,
    );
    const drainMs = drained === undefined ? Number.POSITIVE_INFINITY : drained - natsBack;

    await workload;
    await killer;
    const writeSeconds = (Date.now() - started) / 1000;
    report.note(
      `${attempts} write requests in ${writeSeconds.toFixed(0)} s (${(attempts / writeSeconds).toFixed(1)}/s), identity killed ${kills} times`,
    );
    report.note(`answers: ${[...statuses].map(([key, value]) => `${key}: ${value}`).join(', ')}`);
    client.close();

    // Everything prepared has had its grace; every outbox must empty by itself.
    const empty = await waitFor(
      async () => ((await outboxBacklog(drill.stack.infra.ferretdb.url, ['identity', 'catalog'])).all === 0 ? true : undefined),
      PREPARED_GRACE_MS + 60_000,
      250,
    );
    report.figure(
      'outbox drained after NATS returned',
      seconds(drainMs),
      `${backlogBefore.ready} events waiting; within 10 s`,
      drainMs <= 10_000,
    );
    const servedShare = duringOutage.requests === 0 ? 0 : duringOutage.succeeded / duringOutage.requests;
    report.figure(
      'writes answered 2xx while NATS was down',
      `${(servedShare * 100).toFixed(0)} % (${duringOutage.succeeded} of ${duringOutage.requests})`,
      '≥ 50 %, identity restarts included',
      servedShare >= 0.5,
    );
    report.figure('outboxes empty after the writes', empty ? 'yes' : 'no', 'every prepared event judged', empty === true);

    const verdict = await judge(drill, run, await readStream(drill.stack.infra.nats.url, SUBJECTS));
    report.note(
      `committed writes: ${verdict.committed} (registrations ${verdict.sessions}, profiles ${verdict.profiles}, extra data ${verdict.extra}); events on the stream: ${verdict.events}`,
    );
    report.figure('lost events', verdict.lost, '0', verdict.lost === 0);
    report.figure('phantom events', verdict.phantom, '0', verdict.phantom === 0);
    report.figure(
      'duplicates',
      `${verdict.duplicates} (${verdict.foreignDuplicates} with another message ID)`,
      'only with the same message ID',
      verdict.foreignDuplicates === 0,
    );
    keep = !report.ok;
    return report;
  } finally {
    await drill.stop(keep);
  }
}

interface Verdict {
  committed: number;
  sessions: number;
  profiles: number;
  extra: number;
  events: number;
  lost: number;
  phantom: number;
  duplicates: number;
  foreignDuplicates: number;
}

/**
 * The database says which writes committed: a registration's session row, a profile update's
 * first name, an extra-data row. Each must have exactly one event (by event ID; copies share it)
 * and each event its write.
 */
async function judge(drill: Drill, run: string, stream: StreamedEvent[]): Promise<Verdict> {
  return withDatabase(drill.stack.infra.ferretdb.url, async (db) => {
    const identity = db('identity');
    const prefix = `drill-${run}-`;
    const users = (await identity.collection('users').find({}).toArray()).filter((user) => String(user['email']).startsWith(prefix));
    const byId = new Map(users.map((user) => [Number(user['_id']), String(user['email'])]));
    const number = (email: string): string => email.slice(prefix.length).split('@')[0]!;
    const sessions = new Set(
      (await identity.collection('sessions').find({}).toArray())
        .filter((row) => byId.has(Number(row['user_id'])))
        .map((row) => Number(row['_id'])),
    );
    const profiles = new Set(
      users.filter((user) => user['first_name'] === `F${number(String(user['email']))}`).map((user) => Number(user['_id'])),
    );
    const extra = new Set(
      (await identity.collection('extra_data').find({ group_key: 'drill' }).toArray())
        .filter((row) => byId.has(Number(row['user_id'])))
        .map((row) => Number(row['_id'])),
    );

    const ours = stream.filter((event) => byId.has(Number(event.payload['user_id'])));
    const keyOf = (event: StreamedEvent): string | undefined => {
      if (event.name === 'user_signup') return `session:${String(event.payload['session_id'])}`;
      if (event.name === 'user_profile_updated') return `profile:${String(event.payload['user_id'])}`;
      if (event.name === 'user_extra_data_updated') return `extra:${String(event.payload['extra_data_id'])}`;
      return undefined;
    };
    const committedKeys = new Set([
      ...[...sessions].map((id) => `session:${id}`),
      ...[...profiles].map((id) => `profile:${id}`),
      ...[...extra].map((id) => `extra:${id}`),
    ]);
    const idsByKey = new Map<string, Set<string>>();
    let duplicates = 0;
    const seen = new Set<string>();
    let mislabelled = 0;
    for (const event of ours) {
      const key = keyOf(event);
      if (!key) continue;
      if (event.messageId !== event.id) mislabelled++;
      if (seen.has(event.id)) duplicates++;
      seen.add(event.id);
      idsByKey.set(key, (idsByKey.get(key) ?? new Set()).add(event.id));
    }
    const lost = [...committedKeys].filter((key) => !idsByKey.has(key)).length;
    const phantom = [...idsByKey.keys()].filter((key) => !committedKeys.has(key)).length;
    const foreignDuplicates = [...idsByKey.values()].filter((ids) => ids.size > 1).length + mislabelled;
    return {
      committed: committedKeys.size,
      sessions: sessions.size,
      profiles: profiles.size,
      extra: extra.size,
      events: ours.length,
      lost,
      phantom,
      duplicates,
      foreignDuplicates,
    };
  });
}
