// `npm run faults`: the fault drills (tools/faults), not part of `npm test`: install what a clean
// machine lacks, build, then run every scenario (each on a stack of its own: temporary data, free
// loopback ports, processes stopped by PID). Arguments go to the harness (--only events,…).
import { run } from './run.mjs';
import { underProjectNode } from './node-runtime.mjs';

// On the project's Node (.node-version), installed into the cache when the machine's is another.
await underProjectNode(import.meta.url);

run(process.execPath, ['scripts/bootstrap.mjs', '--build']);
run(process.execPath, ['tools/faults/dist/main.js', ...process.argv.slice(2)]);
