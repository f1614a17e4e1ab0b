// `npm run bench` (full run, ~8 minutes) and `npm run bench:smoke` (short run compared with
// bench/results/baseline.json, ≤ 3 minutes): install what a clean machine lacks, build, then
// run the harness (tools/bench), which starts the local stack itself. Not part of `npm test`.
import { run } from './run.mjs';
import { underProjectNode } from './node-runtime.mjs';

// On the project's Node (.node-version), installed into the cache when the machine's is another.
await underProjectNode(import.meta.url);

run(process.execPath, ['scripts/bootstrap.mjs', '--build']);
run(process.execPath, ['tools/bench/dist/main.js', ...process.argv.slice(2)]);
