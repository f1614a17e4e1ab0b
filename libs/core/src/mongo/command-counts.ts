import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Connection } from 'mongoose';

/** What a counting process writes: database commands it sent since start, by command name. */
export interface CommandCounts {
  name: string;
  pid: number;
  /** Incremented by every write, so that a reader can wait for the one it asked for. */
  seq: number;
  commands: Record<string, number>;
}

/**
 * Bench mode (`DB_COMMAND_COUNTS_DIR`, issue 14): counts the commands the driver sends, by name and collection,
 * and writes the totals to `<dir>/<pid>.json` at start and on every SIGUSR2, which tools/bench
 * sends before and after each run to report database round trips per answer. Off by default:
 * command monitoring costs an event per command.
 */
export function countCommands(connection: Connection, name: string, dir: string): void {
  const commands: Record<string, number> = {};
  connection.getClient().on('commandStarted', (event) => {
    // Keyed `<command> <collection>` where the command names one (`find sessions`), so that a
    // report can tell which lookup or write a round trip is.
    const target: unknown = (event.command as Record<string, unknown>)[event.commandName];
    const key = typeof target === 'string' ? `${event.commandName} ${target}` : event.commandName;
    commands[key] = (commands[key] ?? 0) + 1;
  });
  const file = join(dir, `${process.pid}.json`);
  let seq = 0;
  const write = (): void => {
    const counts: CommandCounts = { name, pid: process.pid, seq: seq++, commands };
    // Written whole, then renamed: a reader never sees half a file.
    writeFileSync(`${file}.tmp`, JSON.stringify(counts));
    renameSync(`${file}.tmp`, file);
  };
  mkdirSync(dir, { recursive: true });
  process.on('SIGUSR2', write);
  write();
}
