import { constants } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

/** Absolute paths of the server binaries the local infrastructure runs. */
export interface Tools {
  ferretdb: string;
  natsServer: string;
}

/** Where scripts/bootstrap.mjs keeps built binaries and tools.json. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.MASTHEAD_CACHE_DIR || join(homedir(), '.cache', 'masthead'));
}

/**
 * Finds ferretdb and nats-server: env MASTHEAD_FERRETDB_BIN / MASTHEAD_NATS_BIN, else
 * <cache>/tools.json written by scripts/bootstrap.mjs, else PATH.
 * Throws an Error naming the missing binary and the bootstrap command when one is not found.
 */
export async function resolveTools(env: NodeJS.ProcessEnv = process.env): Promise<Tools> {
  const recorded = await readToolsJson(join(cacheDir(env), 'tools.json'));
  const [ferretdb, natsServer] = await Promise.all([
    findBinary('ferretdb', env.MASTHEAD_FERRETDB_BIN, recorded.ferretdb, env),
    findBinary('nats-server', env.MASTHEAD_NATS_BIN, recorded.natsServer, env),
  ]);
  return { ferretdb, natsServer };
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

async function readToolsJson(file: string): Promise<Partial<Tools>> {
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

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
