// `npm run bench` (full run, ~8 minutes) and `npm run bench:smoke` (short run compared with
// bench/results/baseline.json, ≤ 3 minutes): install what a clean machine lacks, build, then
// run the harness (tools/bench), which starts the local stack itself. Not part of `npm test`.
import { run } from './run.mjs';

run(process.execPath, ['scripts/bootstrap.mjs', '--build']);
run(process.execPath, ['tools/bench/dist/main.js', ...process.argv.slice(2)]);
