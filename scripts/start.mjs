// `npm start`: install what a clean machine lacks, build, then run the local stack
// (FerretDB, NATS, six services, gateway) and load the demo fixture.
import { spawn } from 'node:child_process';
import { run } from './run.mjs';

run(process.execPath, ['scripts/bootstrap.mjs', '--build']);

// The stack runs as a child that owns all processes; signals are forwarded so that SIGTERM or
// Ctrl-C given to `npm start` stops every child by PID.
const stack = spawn(process.execPath, ['tools/devstack/dist/main.js'], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => stack.kill(signal));
}
stack.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
