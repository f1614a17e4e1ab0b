import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository this CLI was built in (tools/admin/dist/cli.js → three folders up). */
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * The addresses a running `npm start` wrote to `.data/stack.json` (tools/devstack), so that an
 * operator need not look them up: `npm run admin -- <command>` just works. MASTHEAD_STACK_FILE
 * names another file. Empty when there is no file, or when the stack that wrote it is gone.
 * Variables set in the environment win over the file (the caller merges them last).
 */
export function runningStackEnv(env: NodeJS.ProcessEnv = process.env): { env: Record<string, string>; file?: string } {
  const file = env['MASTHEAD_STACK_FILE'] || join(repoRoot, '.data', 'stack.json');
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { env: {} };
  }
  const { pid, env: addresses } = (parsed ?? {}) as { pid?: unknown; env?: unknown };
  if (typeof pid !== 'number' || !isAlive(pid) || typeof addresses !== 'object' || addresses === null) return { env: {} };
  const strings = Object.entries(addresses).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return { env: Object.fromEntries(strings), file };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but another user's process (a stack started by someone else).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
