import { spawn, type StdioOptions } from 'node:child_process';
import { closeSync, createWriteStream, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A child process that is stopped by PID. Nothing is registered globally. */
export interface ManagedProcess {
  readonly pid: number;
  readonly name: string;
  /** Settles when the process has exited, for whatever reason; never rejects. */
  readonly exited: Promise<ExitStatus>;
  /**
   * SIGTERM (or the stopSignal), then SIGKILL when the process is still alive after `timeoutMs` (default 10000).
   * Resolves once the process is gone; never throws, also not when it is already dead.
   */
  stop(timeoutMs?: number): Promise<void>;
}

export interface SpawnManagedOptions {
  /** Used in error messages and as the console prefix. */
  name: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** stdout and stderr are appended here; without it (and without `echo`) they are discarded. */
  logFile?: string;
  /** Also copy each output line to this process's stdout, prefixed with `[name]`. */
  echo?: boolean;
  /**
   * Run in a process group of its own, so a terminal's Ctrl-C reaches only the parent, which
   * then stops its children in order. Default false: the child shares the parent's group.
   */
  ownProcessGroup?: boolean;
  /** What stop() sends first; SIGTERM by default. PostgreSQL wants SIGINT (a fast shutdown). */
  stopSignal?: NodeJS.Signals;
}

// After SIGKILL the kernel removes the process at once; this only bounds a stuck exit event.
const KILL_GRACE_MS = 2000;

/**
 * Spawns `cmd` (in the parent's process group unless `ownProcessGroup`) and resolves once it runs. Rejects when it cannot be started
 * (e.g. ENOENT); a start followed by an immediate exit resolves and shows in `exited`.
 */
export async function spawnManaged(cmd: string, args: readonly string[], options: SpawnManagedOptions): Promise<ManagedProcess> {
  const { name, logFile, echo = false, stopSignal = 'SIGTERM' } = options;
  if (logFile) mkdirSync(dirname(logFile), { recursive: true });

  // Without echo the child writes straight into the file: no parent pipes to keep drained.
  const fd = logFile && !echo ? openSync(logFile, 'a') : undefined;
  const stdio: StdioOptions = echo ? ['ignore', 'pipe', 'pipe'] : fd === undefined ? 'ignore' : ['ignore', fd, fd];
  const child = spawn(cmd, args, { env: options.env ?? process.env, cwd: options.cwd, stdio, detached: options.ownProcessGroup ?? false });
  if (fd !== undefined) closeSync(fd);

  // Listen before anything is awaited, so that no exit can go unseen.
  let exitStatus: ExitStatus | undefined;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      exitStatus = { code, signal };
      resolve(exitStatus);
    });
  });

  try {
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
  } catch (error) {
    throw new Error(`${name}: cannot start ${cmd}: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Later errors (a failed kill) are irrelevant: exit is tracked below.
  child.on('error', () => undefined);

  if (echo) forwardOutput(name, logFile, [child.stdout, child.stderr]);

  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name}: ${cmd} started without a PID`);

  const signal = (sig: NodeJS.Signals): void => {
    if (exitStatus) return; // the PID may already belong to someone else
    try {
      process.kill(pid, sig);
    } catch {
      // ESRCH: already gone
    }
  };

  return {
    pid,
    name,
    exited,
    async stop(timeoutMs = 10_000) {
      if (exitStatus) return;
      signal(stopSignal);
      if (await settlesWithin(exited, timeoutMs)) return;
      signal('SIGKILL');
      await settlesWithin(exited, KILL_GRACE_MS);
    },
  };
}

/** Resolves true when `promise` settles within `ms`, false otherwise; leaves no timer behind. */
/** Whether a process of this PID still exists (signal 0 checks without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function forwardOutput(name: string, logFile: string | undefined, streams: Array<Readable | null>): void {
  const file = logFile ? createWriteStream(logFile, { flags: 'a' }) : undefined;
  for (const stream of streams) {
    if (!stream) continue;
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      file?.write(chunk);
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(`[${name}] ${line}\n`);
    });
    stream.on('end', () => {
      if (partial) process.stdout.write(`[${name}] ${partial}\n`);
      partial = '';
    });
  }
  // Both streams share the file; close it once the child's output is fully drained.
  let open = streams.filter(Boolean).length;
  for (const stream of streams) stream?.on('close', () => --open === 0 && file?.end());
}

/**
 * One server made of two processes, `front` serving clients over `backend` (FerretDB over
 * PostgreSQL): it has the front's PID and name, counts as exited once either has exited, and
 * stops the front before the backend, so the backend never sees its client vanish mid-stop.
 */
export function stackedProcess(front: ManagedProcess, backend: ManagedProcess): ManagedProcess {
  return {
    pid: front.pid,
    name: front.name,
    exited: Promise.race([front.exited, backend.exited]),
    async stop(timeoutMs) {
      await front.stop(timeoutMs);
      await backend.stop(timeoutMs);
    },
  };
}
