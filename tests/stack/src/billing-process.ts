import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient } from '@masthead/core/clients';
import type { Stack } from './stack.js';

/**
 * Billing as a process of its own, on the stack's billing address, for what an in-process service
 * cannot show: a process killed (SIGKILL) between the provider's answer and billing's record, and
 * two replicas over one database. The stack's own billing must be stopped first
 * (`stack.stopService('billing')`) when this one takes its address.
 */
export interface BillingProcess {
  pid: number;
  address: string;
  /** Resolves with the exit signal or code when the process ends. */
  exited: Promise<string>;
  kill(): Promise<void>;
}

export interface BillingProcessOptions {
  /** Listen here instead of the stack's billing address (a second replica). */
  address?: string;
  /** Kill the process right after a provider write whose idempotency key contains this text. */
  crashAfterWriteContaining?: string;
  /** A file holding the ISO time billing's clock reads (renewals); absent: the real clock. */
  clockFile?: string;
  env?: Record<string, string>;
}

const entry = fileURLToPath(new URL('./billing-process-main.js', import.meta.url));

export async function startBillingProcess(stack: Stack, options: BillingProcessOptions = {}): Promise<BillingProcess> {
  const address = options.address ?? stack.env['BILLING_ADDR']!;
  const env: Record<string, string> = { ...stack.env, GRPC_LISTEN: address, ...options.env };
  if (options.crashAfterWriteContaining) env['MASTHEAD_TEST_CRASH_AFTER_WRITE'] = options.crashAfterWriteContaining;
  if (options.clockFile) env['MASTHEAD_TEST_CLOCK_FILE'] = options.clockFile;
  const child: ChildProcess = spawn(process.execPath, [entry], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? String(code))));
  await waitUntilServing(address, exited);
  return {
    pid: child.pid!,
    address,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Polls a cheap read until the process answers (or gives up when it exited or 30 s passed). */
async function waitUntilServing(address: string, exited: Promise<string>): Promise<void> {
  const client = createClient('promoCodes', { billing: address }, { defaultDeadlineMs: 1000 });
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await client.listPromoCodes({ resourceId: 0 });
        return;
      } catch (error) {
        if (gone || Date.now() > deadline) throw new Error(`billing process on ${address} did not start: ${(error as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    client.close();
  }
}
