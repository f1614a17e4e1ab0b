// Database round trips per answer, from the services' driver command counts (issue 14). The
// services count in bench mode (`DB_COMMAND_COUNTS_DIR`, `countCommands` of @masthead/core/mongo)
// and write their totals to `<dir>/<pid>.json` when sent SIGUSR2.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What one service process wrote: its totals by command name since it started. */
interface CountsFile {
  name: string;
  pid: number;
  seq: number;
  commands: Record<string, number>;
}

/** Commands by name, per process name. */
export type CommandsByProcess = Record<string, Record<string, number>>;

/** The commands that change data; every other command a service sends reads. */
export const WRITE_COMMANDS: ReadonlySet<string> = new Set(['insert', 'update', 'delete', 'findAndModify']);

/** Counts are keyed `<command> <collection>` where the command names a collection. */
const isWrite = (key: string): boolean => WRITE_COMMANDS.has(key.split(' ')[0] ?? key);

const WAIT_MS = 5000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function readCounts(file: string): Promise<CountsFile | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as CountsFile;
  } catch {
    return undefined;
  }
}

export class CommandCounter {
  constructor(
    private readonly dir: string,
    /** The service processes; only those that wrote a counts file at start are signalled. */
    private readonly pids: readonly number[],
  ) {}

  /** Every counting process's totals now: each is asked (SIGUSR2) and answers with a fresh file. */
  async snapshot(): Promise<CommandsByProcess> {
    const entries = await Promise.all(this.pids.map(async (pid) => this.ask(pid)));
    return Object.fromEntries(entries.filter((entry) => entry !== undefined).map((counts) => [counts.name, counts.commands]));
  }

  private async ask(pid: number): Promise<CountsFile | undefined> {
    const file = join(this.dir, `${pid}.json`);
    // No file: not a counting process (a signal would end it); never signalled.
    const before = await readCounts(file);
    if (!before) return undefined;
    process.kill(pid, 'SIGUSR2');
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const now = await readCounts(file);
      if (now && now.seq > before.seq) return now;
      if (Date.now() > deadline) throw new Error(`${before.name} (pid ${pid}) did not write its command counts within ${WAIT_MS} ms`);
      await sleep(5);
    }
  }
}

/** Commands sent between two snapshots, per process. */
export function commandDelta(before: CommandsByProcess, after: CommandsByProcess): CommandsByProcess {
  return Object.fromEntries(
    Object.entries(after).map(([name, commands]) => [
      name,
      Object.fromEntries(
        Object.entries(commands)
          .map(([command, count]) => [command, count - (before[name]?.[command] ?? 0)] as const)
          .filter(([, count]) => count > 0),
      ),
    ]),
  );
}

export interface RoundTrips {
  /** Every command, all processes. */
  total: number;
  /** insert, update, delete, findAndModify. */
  writes: number;
  byProcess: Record<string, number>;
}

/** Sums a delta: all commands, writes, and all commands per process. */
export function roundTrips(delta: CommandsByProcess): RoundTrips {
  let total = 0;
  let writes = 0;
  const byProcess: Record<string, number> = {};
  for (const [name, commands] of Object.entries(delta)) {
    for (const [command, count] of Object.entries(commands)) {
      total += count;
      if (isWrite(command)) writes += count;
      byProcess[name] = (byProcess[name] ?? 0) + count;
    }
  }
  return { total, writes, byProcess };
}
