import { percentile, startDrill } from '../drill.js';
import { GatewayClient, isEnvelope } from '../http.js';
import { closedLoop, openLoop, succeeded, tally, type RequestFactory } from '../load.js';
import { ScenarioReport, seconds } from '../report.js';

const CONNECTIONS = 8;
const MEASURE_MS = 10_000;
const DEPENDENT_RATE = 20;
const DEADLINE_MS = 5_000;

const guest = { resource: 'demo-resource' };
/** Routes that need accounts only. */
const other: RequestFactory = (index) =>
  index % 2 === 0
    ? { family: 'GET /languages', method: 'GET', path: '/api/v1/languages?page=1', headers: guest }
    : { family: 'GET /countries', method: 'GET', path: '/api/v1/countries?page=1', headers: guest };
/** A route served by catalog, the service that stops answering. */
const dependent: RequestFactory = () => ({ family: 'GET /plans', method: 'GET', path: '/api/v1/plans?page=1', headers: guest });

/**
 * "Slow dependency": catalog stops answering (SIGSTOP: its connections stay open, nothing comes
 * back). Its callers pay one deadline (504 in the envelope, at 5 s, not a pile-up past it) and
 * routes that do not need it keep at least half their throughput.
 */
export async function slowDependency(): Promise<ScenarioReport> {
  const report = new ScenarioReport('slow-dependency');
  const drill = await startDrill('slow');
  let keep = true;
  let stopped: number | undefined;
  try {
    const client = new GatewayClient(drill.stack.origins, { timeoutMs: 20_000 });
    await closedLoop(client, CONNECTIONS, 2_000, other); // warm-up
    const baseline = await closedLoop(client, CONNECTIONS, MEASURE_MS, other);

    stopped = drill.process('catalog').pid;
    process.kill(stopped, 'SIGSTOP');
    drill.log(`catalog (pid ${stopped}) stopped with SIGSTOP`);
    const [during, waiting] = await Promise.all([
      closedLoop(client, CONNECTIONS, MEASURE_MS, other),
      openLoop(client, DEPENDENT_RATE, MEASURE_MS, dependent),
    ]);
    process.kill(stopped, 'SIGCONT');
    stopped = undefined;
    client.close();

    const rate = (samples: typeof baseline): number => samples.filter(succeeded).length / (MEASURE_MS / 1000);
    const share = rate(during) / rate(baseline);
    report.note(
      `other routes: ${rate(baseline).toFixed(1)}/s before, ${rate(during).toFixed(1)}/s while catalog is stopped (${tally(during)})`,
    );
    report.figure('throughput of other routes kept', `${(share * 100).toFixed(0)} %`, '≥ 50 %', share >= 0.5);
    const latencies = waiting.map((sample) => sample.ms);
    const deadlineAnswers = waiting.filter((sample) => sample.status === 504 && isEnvelope(sample.body, 'service_unavailable'));
    report.note(`GET /plans while catalog is stopped: ${tally(waiting)}`);
    report.figure(
      "callers' wait (median / max)",
      `${seconds(percentile(latencies, 50))} / ${seconds(Math.max(...latencies))}`,
      `one deadline: every answer a 504 in the envelope within ${seconds(DEADLINE_MS + 1_000)}`,
      deadlineAnswers.length === waiting.length && Math.max(...latencies) <= DEADLINE_MS + 1_000,
    );
    keep = !report.ok;
    return report;
  } finally {
    if (stopped !== undefined) process.kill(stopped, 'SIGCONT');
    await drill.stop(keep);
  }
}
