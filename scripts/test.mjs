// `npm test`: install what a clean machine lacks, build, then run the whole suite (unit,
// service integration against FerretDB and NATS, HTTP end-to-end through the gateway).
import { run } from './run.mjs';

run(process.execPath, ['scripts/bootstrap.mjs', '--build']);
run('pnpm', ['exec', 'vitest', 'run', ...process.argv.slice(2)]);
