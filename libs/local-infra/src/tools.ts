import { constants } from 'node:fs';
import { access, readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';

/** Absolute paths of the server binaries the local infrastructure runs. */
export interface Tools {
  ferretdb: string;
  natsServer: string;
  /** The folder of PostgreSQL's initdb, postgres, pg_isready and psql (FerretDB's backend). */
  postgresBinDir: string;
}

/** Where scripts/bootstrap.mjs keeps built binaries and tools.json. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.MASTHEAD_CACHE_DIR || join(homedir(), '.cache', 'masthead'));
}

/**
 * Finds ferretdb and nats-server: env MASTHEAD_FERRETDB_BIN / MASTHEAD_NATS_BIN, else
 * <cache>/tools.json written by scripts/bootstrap.mjs, else PATH; and PostgreSQL's binaries:
 * env MASTHEAD_POSTGRES_BIN_DIR, else the newest /usr/lib/postgresql/N/bin (Debian), else PATH.
 * Throws an Error naming the missing binary and the bootstrap command when one is not found.
 */
export async function resolveTools(env: NodeJS.ProcessEnv = process.env): Promise<Tools> {
  const recorded = await readToolsJson(join(cacheDir(env), 'tools.json'));
  const [ferretdb, natsServer, initdb] = await Promise.all([
    findBinary('ferretdb', env.MASTHEAD_FERRETDB_BIN, recorded.ferretdb, env),
    findBinary('nats-server', env.MASTHEAD_NATS_BIN, recorded.natsServer, env),
    findBinary('initdb', env.MASTHEAD_POSTGRES_BIN_DIR && join(env.MASTHEAD_POSTGRES_BIN_DIR, 'initdb'), await debianInitdb(), env),
  ]);
  return { ferretdb, natsServer, postgresBinDir: dirname(initdb) };
}

const DEBIAN_POSTGRES_ROOT = '/usr/lib/postgresql';

/** Debian keeps each major version's server binaries off PATH, in /usr/lib/postgresql/N/bin. */
async function debianInitdb(): Promise<string | undefined> {
  const versions = await readdir(DEBIAN_POSTGRES_ROOT).catch(() => [] as string[]);
  const newestFirst = versions.filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a));
  for (const version of newestFirst) {
    const candidate = join(DEBIAN_POSTGRES_ROOT, version, 'bin', 'initdb');
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

async function findBinary(
  name: string,
  fromEnv: string | undefined,
  recorded: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  if (fromEnv) {
    if (await isExecutable(fromEnv)) return resolve(fromEnv);
    throw new Error(`${name}: ${fromEnv} (from the environment) is not an executable file`);
  }
  if (recorded && (await isExecutable(recorded))) return recorded;
  // sbin dirs: Debian installs nats-server there and ordinary users' PATH often lacks them.
  const dirs = [...(env.PATH ?? '').split(delimiter), '/usr/local/sbin', '/usr/sbin'];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (dir && (await isExecutable(candidate))) return candidate;
  }
  throw new Error(`${name} not found: run \`node scripts/bootstrap.mjs --tools\` from the repository root`);
}

async function readToolsJson(file: string): Promise<Partial<Pick<Tools, 'ferretdb' | 'natsServer'>>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return {};
  }
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null) return {};
  const record = parsed as Record<string, unknown>;
  return {
    ferretdb: typeof record.ferretdb === 'string' ? record.ferretdb : undefined,
    natsServer: typeof record.natsServer === 'string' ? record.natsServer : undefined,
  };
}

/** Whether `file` exists and this process may run it. */
export async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
