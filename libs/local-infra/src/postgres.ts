import { spawn, spawnSync } from 'node:child_process';
import { access, chmod, chown, mkdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

import { freePort } from './ports.js';
import { spawnManaged } from './process.js';
import { LOOPBACK, type StartedServer } from './server.js';
import { waitUntilReady } from './wait.js';

// A cold initdb plus start takes ~2 s here; 30 s covers a loaded CI machine.
const READY_TIMEOUT_MS = 30_000;
const PORT_ATTEMPTS = 3;
/** The cluster's superuser and database: FerretDB connects as it, over loopback, with trust. */
export const POSTGRES_ROLE = 'masthead';
export const POSTGRES_DATABASE = 'postgres';

export interface StartPostgresOptions {
  /** The cluster's folder; initialised when it holds none, kept on stop. */
  dataDir: string;
  binDir: string;
  port?: number;
  logFile?: string;
  echo?: boolean;
  ownProcessGroup?: boolean;
  /** The data is thrown away after the run (tests): no fsync at all. */
  ephemeral?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** An unprivileged account to run PostgreSQL as (it refuses to run as root). */
interface ServerAccount {
  name: string;
  uid: number;
  gid: number;
}

/**
 * Starts a PostgreSQL cluster on a loopback port (initialising it first when new) and resolves
 * once it accepts connections. As root it runs as the `postgres` account (MASTHEAD_POSTGRES_USER
 * names another), which then owns the cluster folder; otherwise as the current user.
 */
export async function startPostgres(options: StartPostgresOptions): Promise<StartedServer> {
  const env = options.env ?? process.env;
  const dataDir = resolve(options.dataDir);
  const account = serverAccount(env);
  await prepareDataDir(dataDir, account);
  if (!(await exists(join(dataDir, 'PG_VERSION')))) await initdb(options.binDir, dataDir, account);

  const attempts = options.port === undefined ? PORT_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort(LOOPBACK));
    const [cmd, args] = asAccount(account, join(options.binDir, 'postgres'), ['-D', dataDir, ...serverSettings(port, options.ephemeral)]);
    const child = await spawnManaged(cmd, args, {
      name: 'postgres',
      cwd: dataDir,
      logFile: options.logFile,
      echo: options.echo,
      ownProcessGroup: options.ownProcessGroup,
      // SIGTERM waits for every client to leave; SIGINT disconnects them and shuts down cleanly.
      stopSignal: 'SIGINT',
    });
    const outcome = await waitUntilReady(child, () => acceptsConnections(options.binDir, port), READY_TIMEOUT_MS);
    if (outcome === 'ready') return { url: `postgres://${POSTGRES_ROLE}@${LOOPBACK}:${port}/${POSTGRES_DATABASE}`, port, process: child };

    await child.stop(2000);
    if (outcome === 'exited' && attempt < attempts) continue;
    const status = await child.exited;
    const why =
      outcome === 'timeout' ? `was not ready within ${READY_TIMEOUT_MS} ms` : `exited (code ${status.code}, signal ${status.signal})`;
    throw new Error(`postgres on port ${port} ${why}${options.logFile ? `; see ${options.logFile}` : ''}`);
  }
}

/** Runs `sql` in the cluster's database with psql; throws with psql's output when it fails. */
export async function runSql(binDir: string, server: Pick<StartedServer, 'port'>, sql: string): Promise<void> {
  const args = [
    '-X',
    '-q',
    '-v',
    'ON_ERROR_STOP=1',
    '-h',
    LOOPBACK,
    '-p',
    String(server.port),
    '-U',
    POSTGRES_ROLE,
    '-d',
    POSTGRES_DATABASE,
  ];
  const { code, output } = await runToEnd(join(binDir, 'psql'), args, { input: sql });
  if (code !== 0) throw new Error(`psql failed (exit ${code}): ${output}`);
}

/** Runs a short command to its end; resolves with its exit code and its combined output. */
async function runToEnd(
  cmd: string,
  args: string[],
  options: { cwd?: string; input?: string } = {},
): Promise<{ code: number | null; output: string }> {
  const child = spawn(cmd, args, { cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer): void => void (output += chunk.toString());
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  child.stdin.on('error', () => undefined); // EPIPE when it exits without reading
  child.stdin.end(options.input ?? '');
  const code = await new Promise<number | null>((resolve) => {
    child.once('error', (error) => {
      output += error.message;
      resolve(null);
    });
    child.once('close', resolve);
  });
  return { code, output: output.trim() };
}

/**
 * Settings on the command line, where an operator reading `ps` sees them.
 * - plan_cache_mode: FerretDB sends its filters as prepared statements (`_jsonb -> $1 @> $2`);
 *   a generic plan cannot match an expression index, a custom plan (with $1 inlined) can.
 * - synchronous_commit=off: a crash can lose the last commits, never corrupt (what the SQLite
 *   backend's synchronous=NORMAL gave before); ephemeral adds fsync=off, which can corrupt on a
 *   power loss, so only for data thrown away after the run.
 * - Unix sockets off: the default socket folder is not writable by every user; loopback TCP only.
 * - Client errors (a duplicate key is routine) are the client's to report: only LOG and worse.
 */
function serverSettings(port: number, ephemeral = false): string[] {
  const settings: Record<string, string> = {
    listen_addresses: LOOPBACK,
    port: String(port),
    unix_socket_directories: '',
    plan_cache_mode: 'force_custom_plan',
    synchronous_commit: 'off',
    // FerretDB pools up to 50 connections; the rest is for psql and headroom.
    max_connections: '80',
    shared_buffers: '64MB',
    jit: 'off',
    log_min_messages: 'log',
    log_checkpoints: 'off',
    ...(ephemeral ? { fsync: 'off', full_page_writes: 'off' } : {}),
  };
  return Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
}

async function initdb(binDir: string, dataDir: string, account: ServerAccount | undefined): Promise<void> {
  const [cmd, args] = asAccount(account, join(binDir, 'initdb'), [
    '-D',
    dataDir,
    `--username=${POSTGRES_ROLE}`,
    // Loopback only, like FerretDB and NATS beside it: a local development and test database.
    '--auth=trust',
    '--encoding=UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  const { code, output } = await runToEnd(cmd, args, { cwd: dataDir });
  if (code !== 0) throw new Error(`initdb ${dataDir} failed (exit ${code}): ${output}`);
}

/** `pg_isready` exits 0 once the server accepts connections (1: starting, 2: no answer). */
function acceptsConnections(binDir: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(join(binDir, 'pg_isready'), ['-q', '-h', LOOPBACK, '-p', String(port), '-U', POSTGRES_ROLE], { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}

/** Wraps a command so that it runs as `account`; setpriv execs in place, so the PID is the server's. */
function asAccount(account: ServerAccount | undefined, cmd: string, args: string[]): [string, string[]] {
  if (!account) return [cmd, args];
  return ['setpriv', [`--reuid=${account.uid}`, `--regid=${account.gid}`, '--init-groups', '--', cmd, ...args]];
}

function serverAccount(env: NodeJS.ProcessEnv): ServerAccount | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const name = env.MASTHEAD_POSTGRES_USER || 'postgres';
  const id = (flag: string): number => {
    const result = spawnSync('id', [flag, name], { encoding: 'utf8' });
    const value = Number(result.stdout?.trim());
    if (result.status !== 0 || !Number.isInteger(value)) {
      throw new Error(
        `PostgreSQL cannot run as root and there is no account "${name}" to run it as: install Debian's postgresql (node scripts/bootstrap.mjs) or set MASTHEAD_POSTGRES_USER`,
      );
    }
    return value;
  };
  return { name, uid: id('-u'), gid: id('-g') };
}

/**
 * The cluster folder belongs to the server's account with mode 0700 (PostgreSQL insists). As
 * root, that account must also pass through every folder above it: those that lack it get the
 * search bit for others (o+x: pass through, not list), e.g. a 0700 folder from mkdtemp.
 */
async function prepareDataDir(dataDir: string, account: ServerAccount | undefined): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (!account) return;
  await chown(dataDir, account.uid, account.gid);
  await chmod(dataDir, 0o700);
  for (let dir = dirname(dataDir); ; dir = dirname(dir)) {
    const { mode, uid, gid } = await stat(dir);
    const passable = (mode & 0o001) !== 0 || (uid === account.uid && (mode & 0o100) !== 0) || (gid === account.gid && (mode & 0o010) !== 0);
    if (!passable) await chmod(dir, (mode & 0o7777) | 0o001);
    if (dirname(dir) === dir) break;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
