import { rm, writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * `<repo>/.data/stack.json`: where a running `npm start` says what it runs, so that an operator's
 * tools find it by themselves (`npm run admin -- <command>` reads `env` from it, README "The
 * admin CLI"). Written once the processes run, removed when the stack stops; `pid` tells a
 * reader whether the file is stale (the stack was killed).
 */
export interface StackFile {
  pid: number;
  started_at: string;
  /** e.g. http://127.0.0.1:8080/api/v1 */
  api: string;
  /** What the admin CLI needs: the six `*_ADDR`, `MONGO_URL`, `NATS_URL`, `MASTHEAD_ENV`. */
  env: Record<string, string>;
  /** Each process's Prometheus endpoint, by process name. */
  metrics: Record<string, string>;
}

export const stackFilePath = (dataDir: string): string => join(dataDir, 'stack.json');

/** Written beside and renamed, so that a reader never sees half a file. */
export async function writeStackFile(dataDir: string, content: StackFile): Promise<void> {
  const file = stackFilePath(dataDir);
  const partial = `${file}.${process.pid}.tmp`;
  await writeFile(partial, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  await rename(partial, file);
}

export const removeStackFile = (dataDir: string): Promise<void> => rm(stackFilePath(dataDir), { force: true });
