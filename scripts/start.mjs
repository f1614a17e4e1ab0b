// `npm start`: install what a clean machine lacks, build, then run the local stack
// (FerretDB, NATS, six services, gateway) and load the demo fixture.
import { run } from './run.mjs';

run(process.execPath, ['scripts/bootstrap.mjs', '--build']);
run(process.execPath, ['tools/devstack/dist/main.js']);
