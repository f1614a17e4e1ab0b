#!/usr/bin/env node
// `npm run faults` runs this after bootstrap and build (scripts/faults.mjs): fault drills against
// stacks of their own (temporary data, free loopback ports, every process stopped by PID). Each
// scenario prints its figures and fails when one misses its requirement; exit code 1 then.
//
//   --only a,b       run these scenarios only (events, database, supervisor, rolling, slow)
//   --writes N       events: write requests (10000)
//   --nats-down S    events: seconds NATS stays down (60)
import { parseArgs } from 'node:util';

import { summary, type ScenarioReport } from './report.js';
import { databaseOutage } from './scenarios/database.js';
import { eventsNeverLost } from './scenarios/events.js';
import { rollingRestart } from './scenarios/rolling.js';
import { slowDependency } from './scenarios/slow.js';
import { supervisorSurvives } from './scenarios/supervisor.js';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    writes: { type: 'string', default: '10000' },
    'nats-down': { type: 'string', default: '60' },
    rate: { type: 'string', default: '200' },
  },
});
const positive = (text: string | undefined, name: string): number => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
};

const SCENARIOS: Record<string, () => Promise<ScenarioReport>> = {
  events: () =>
    eventsNeverLost({
      writes: positive(values.writes, 'writes'),
      natsDownMs: positive(values['nats-down'], 'nats-down') * 1000,
      workers: 8,
    }),
  database: () => databaseOutage(),
  supervisor: () => supervisorSurvives(),
  rolling: () => rollingRestart({ rate: positive(values.rate, 'rate') }),
  slow: () => slowDependency(),
};
const chosen = values.only ? values.only.split(',').map((name) => name.trim()) : Object.keys(SCENARIOS);
for (const name of chosen) if (!SCENARIOS[name]) throw new Error(`unknown scenario ${name} (${Object.keys(SCENARIOS).join(', ')})`);

const results: ScenarioReport[] = [];
for (const name of chosen) {
  console.log(`\n[faults] scenario ${name}`);
  try {
    results.push(await SCENARIOS[name]!());
  } catch (error) {
    console.error(`[faults] scenario ${name} could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    const { ScenarioReport: Report } = await import('./report.js');
    const failed = new Report(name);
    failed.figure('ran to the end', 'no', 'yes', false);
    results.push(failed);
  }
}
console.log(summary(results));
process.exit(results.every((result) => result.ok) ? 0 : 1);
