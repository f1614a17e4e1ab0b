// `npm run admin -- <command> [options]`: the operator CLI (tools/admin) from the repository root.
// Against a running `npm start` it finds the services by itself (.data/stack.json); the
// *_ADDR variables point it elsewhere.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from './run.mjs';
import { underProjectNode } from './node-runtime.mjs';

// On the project's Node (.node-version), installed into the cache when the machine's is another.
await underProjectNode(import.meta.url);

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'tools', 'admin', 'dist', 'cli.js');
if (!existsSync(cli)) {
  console.error('The admin CLI is not built yet: run `npm start` (or `npm run build`) first.');
  process.exit(1);
}
run(process.execPath, [cli, ...process.argv.slice(2)]);
