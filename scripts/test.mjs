// `npm test`: install what a clean machine lacks, build, typecheck (tests included), check lint
// and format, then run the whole suite (unit, service integration against FerretDB and NATS,
// HTTP end-to-end).
import { run } from './run.mjs';
import { underProjectNode } from './node-runtime.mjs';

// On the project's Node (.node-version), installed into the cache when the machine's is another.
await underProjectNode(import.meta.url);
// Once in every log (CI's too): the Node that pnpm, turbo and vitest run on below.
console.log(`[test] Node ${process.version} (${process.execPath})`);

run(process.execPath, ['scripts/bootstrap.mjs', '--build']);
run('pnpm', ['exec', 'turbo', 'run', 'typecheck', '--output-logs=errors-only']);
run('pnpm', ['exec', 'eslint', '.']);
run('pnpm', ['exec', 'prettier', '--check', '--log-level', 'warn', '.']);
run('pnpm', ['exec', 'vitest', 'run', ...process.argv.slice(2)]);
