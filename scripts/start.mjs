// `npm start`: install what a clean machine lacks, build, then run the local stack
// (FerretDB, NATS, six services, gateway) and load the demo fixture.
import { spawn } from 'node:child_process';
import { run } from './run.mjs';
import { underProjectNode } from './node-runtime.mjs';

// On the project's Node (.node-version), installed into the cache when the machine's is another.
await underProjectNode(import.meta.url);

run(process.execPath, ['scripts/bootstrap.mjs', '--build']);

// The stack runs as a child that owns all processes and stops them by PID on a signal.
const stack = spawn(process.execPath, ['tools/devstack/dist/main.js'], { stdio: 'inherit' });
const stop = (signal) => stack.kill(signal);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(signal));

// npm does not pass SIGTERM on through `sh -c` (Debian's dash does not forward it): npm and the
// shell exit and this process is re-parented. A changed parent means "stop".
const parent = process.ppid;
const watchParent = setInterval(() => {
  if (process.ppid !== parent) stop('SIGTERM');
}, 250);

stack.on('exit', (code, signal) => {
  clearInterval(watchParent);
  process.exit(code ?? (signal ? 1 : 0));
});
