import { connect } from 'node:net';

import { settlesWithin, type ManagedProcess } from './process.js';

const POLL_INTERVAL_MS = 50;

/** Resolves true once a TCP connection to host:port succeeds. */
export function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export type WaitOutcome = 'ready' | 'exited' | 'timeout';

/**
 * Polls `probe` until it returns true, the process exits, or `timeoutMs` passes.
 * A server that dies while starting is reported at once instead of after the deadline.
 */
export async function waitUntilReady(child: ManagedProcess, probe: () => Promise<boolean>, timeoutMs: number): Promise<WaitOutcome> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) return 'exited';
    if (await probe()) return exited ? 'exited' : 'ready';
    if (await settlesWithin(child.exited, POLL_INTERVAL_MS)) return 'exited';
  }
  return 'timeout';
}
