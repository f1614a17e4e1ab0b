import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClients } from '@masthead/core/clients';
import type { StackHandle } from './support.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

const INTEGRATIONS_OPERATOR = ['templates', 'captcha', 'publicEvents', 'webhooks'] as const;

/** Operator clients of integrations' embedded settings, events and webhooks, on the stack's address. */
export function integrationsOperator(s: StackHandle) {
  return createClients(INTEGRATIONS_OPERATOR, { integrations: s.stack.env['INTEGRATIONS_ADDR']! }, { defaultDeadlineMs: 10_000 });
}

/** Runs the admin CLI against the stack (as an operator would); stdin for the secret-reading commands. */
export async function adminCli(s: StackHandle, args: string[], stdin?: string): Promise<{ stdout: string; stderr: string }> {
  const child = run(process.execPath, ['tools/admin/dist/cli.js', ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...s.stack.env, MASTHEAD_ENV: 'development' },
  });
  if (stdin !== undefined) {
    child.child.stdin?.end(stdin);
  } else {
    child.child.stdin?.end();
  }
  return child;
}
