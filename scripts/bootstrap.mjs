#!/usr/bin/env node
// Ensures the tools a Masthead checkout needs, then optionally installs and builds it.
//   --tools  pnpm 9.15.9, nats-server, ferretdb and PostgreSQL (FerretDB's backend); writes
//            <cache>/tools.json (the default); and the card-provider fakes localstripe
//            (<cache>/localstripe) and stripe-mock (<cache>/bin), which only warn when they cannot
//            be installed (only billing's tests need them)
//   --deps   --tools, then `pnpm install`
//   --build  --deps, then `pnpm exec turbo run build`
// Idempotent and quick when everything is present. Runs on any Node from 20 on (the machine's own),
// then again on the project's; no dependencies.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir, isExecutable, underProjectNode } from './node-runtime.mjs';

const PNPM_VERSION = '9.15.9';
const FERRETDB_MODULE = 'github.com/FerretDB/FerretDB';
const FERRETDB_VERSION = 'v1.24.2';
// go.sum hash of the module zip: pins exactly what we compile, whatever the proxy serves.
const FERRETDB_SUM = 'h1:trrUU0LbmusMbyubhPS1IELncvrIwKrsRT2LW1UUWCw=';
// Only used when neither PATH nor apt provides nats-server.
const NATS_GO_MODULE = 'github.com/nats-io/nats-server/v2@v2.10.22';
// Card-provider fakes for billing's tests and `npm start` (docs/adr/0110).
const LOCALSTRIPE_REQUIREMENT = 'localstripe==1.15.10';
const STRIPE_MOCK_MODULE = 'github.com/stripe/stripe-mock';
const STRIPE_MOCK_VERSION = 'v0.203.0';
const STRIPE_MOCK_SUM = 'h1:EzW7nb/fphqcAkgVRHAaC88OaAZo6SBWSl54cflDTio=';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const binDir = join(cacheDir, 'bin');

const log = (msg) => console.log(`[bootstrap] ${msg}`);

function fail(msg) {
  console.error(`[bootstrap] error: ${msg}`);
  process.exit(1);
}

// PATH lookup without spawning `which`; sbin dirs added because Debian puts nats-server there
// and non-login shells of ordinary users often lack them.
function which(name) {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin'];
  for (const dir of dirs) {
    if (dir && isExecutable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

// Runs a command with inherited output; returns true on exit code 0.
function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { stdio: 'inherit', ...options });
  if (result.error) {
    console.error(`[bootstrap] ${cmd}: ${result.error.message}`);
    return false;
  }
  return result.status === 0;
}

function capture(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...options });
  return { ok: !result.error && result.status === 0, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
}

function goEnv() {
  // GOTOOLCHAIN=local: never try to download another Go toolchain (the proxy may refuse it).
  return { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-buildvcs=false' };
}

const findGo = () => which('go') ?? (isExecutable('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);

function ensurePnpm() {
  const current = capture('pnpm', ['--version']).stdout.trim();
  if (current === PNPM_VERSION) return;
  log(`pnpm ${current || 'missing'}; installing pnpm@${PNPM_VERSION}`);
  if (!run('npm', ['install', '-g', `pnpm@${PNPM_VERSION}`])) fail(`npm install -g pnpm@${PNPM_VERSION} failed`);
}

function ensureNatsServer() {
  const fromEnv = process.env.MASTHEAD_NATS_BIN;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) fail(`MASTHEAD_NATS_BIN=${fromEnv} is not an executable file`);
    return resolve(fromEnv);
  }
  const found = which('nats-server') ?? (isExecutable(join(binDir, 'nats-server')) ? join(binDir, 'nats-server') : undefined);
  if (found) return found;

  if (process.getuid?.() === 0 && which('apt-get')) {
    log('installing nats-server with apt-get');
    const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    // A fresh image has no package lists; update only when the first attempt fails.
    const installed =
      run('apt-get', ['install', '-y', '-q', 'nats-server'], { env: aptEnv }) ||
      (run('apt-get', ['update', '-q'], { env: aptEnv }) && run('apt-get', ['install', '-y', '-q', 'nats-server'], { env: aptEnv }));
    const path = installed ? which('nats-server') : undefined;
    if (path) return path;
    log('apt-get did not provide nats-server; trying go install');
  }

  const go = findGo();
  if (!go) fail('nats-server not found and neither apt-get (as root) nor Go is available to install it');
  log(`building nats-server (${NATS_GO_MODULE}) with go install`);
  if (!run(go, ['install', NATS_GO_MODULE], { env: { ...goEnv(), GOBIN: binDir } })) fail('go install nats-server failed');
  return join(binDir, 'nats-server');
}

// `go install ...@v1.24.2` fails here: the proxy answers the deprecation lookup (@v/list) with
// 403. Downloading the exact version and building it from a writable copy avoids that lookup.
function buildFerretDb(target) {
  const go = findGo();
  if (!go) fail('ferretdb is missing and Go is not installed to build it (or set MASTHEAD_FERRETDB_BIN)');
  log(`building ferretdb ${FERRETDB_VERSION} from the Go module proxy (1-2 min)`);
  const started = Date.now();
  const download = capture(go, ['mod', 'download', '-json', `${FERRETDB_MODULE}@${FERRETDB_VERSION}`], {
    env: goEnv(),
    cwd: tmpdir(),
  });
  if (!download.ok) fail(`go mod download failed:\n${download.stdout}${download.stderr}`);
  const info = JSON.parse(download.stdout);
  if (info.Sum !== FERRETDB_SUM) fail(`ferretdb module hash ${info.Sum} does not match the pinned ${FERRETDB_SUM}`);

  const work = mkdtempSync(join(tmpdir(), 'ferretdb-src-'));
  try {
    const src = join(work, 'src');
    cpSync(info.Dir, src, { recursive: true });
    makeWritable(src);
    // The binary panics at start without this file; upstream's release build generates it.
    writeFileSync(join(src, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);
    // Build next to the target and rename, so a concurrent or interrupted run never sees half a binary.
    const partial = `${target}.${process.pid}.tmp`;
    // Output captured: dozens of "go: downloading" lines say nothing unless the build fails.
    const built = capture(go, ['build', '-trimpath', '-o', partial, './cmd/ferretdb'], { cwd: src, env: goEnv() });
    if (!built.ok) {
      rmSync(partial, { force: true });
      fail(`go build ferretdb failed:\n${built.stdout}${built.stderr}`);
    }
    renameSync(partial, target);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  log(`built ferretdb in ${Math.round((Date.now() - started) / 1000)} s`);
}

// The module cache is read-only; the copy must be writable to add version.txt and to delete it.
function makeWritable(dir) {
  if (!run('chmod', ['-R', 'u+w', dir])) fail(`chmod -R u+w ${dir} failed`);
}

function ensureFerretDb() {
  const fromEnv = process.env.MASTHEAD_FERRETDB_BIN;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) fail(`MASTHEAD_FERRETDB_BIN=${fromEnv} is not an executable file`);
    return resolve(fromEnv);
  }
  const target = join(binDir, 'ferretdb');
  if (!isExecutable(target)) buildFerretDb(target);
  return target;
}

const warn = (msg) => console.warn(`[bootstrap] warning: ${msg}`);

// A virtualenv at a fixed path (libs/local-infra card-provider.ts finds it there), marked with the
// requirement it holds; a changed pin rebuilds it. Built beside and renamed into place, so an
// interrupted or concurrent run never leaves half an environment: the launcher runs
// bin/python, which works from the renamed folder (only pip's script shebangs would not).
function ensureLocalStripe() {
  const target = join(cacheDir, 'localstripe');
  const marker = join(target, 'masthead-requirement.txt');
  const current = () => existsSync(marker) && readFileSync(marker, 'utf8').trim() === LOCALSTRIPE_REQUIREMENT;
  if (current() && isExecutable(join(target, 'bin', 'python'))) return target;
  const python = which('python3');
  if (!python) return warn('python3 not found: localstripe (billing tests, npm start card demo) is not installed');
  log(`installing ${LOCALSTRIPE_REQUIREMENT} into ${target}`);
  const partial = `${target}.${process.pid}.tmp`;
  rmSync(partial, { recursive: true, force: true });
  const venv = capture(python, ['-m', 'venv', partial]);
  const pip = venv.ok
    ? capture(join(partial, 'bin', 'python'), ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', LOCALSTRIPE_REQUIREMENT])
    : venv;
  if (!pip.ok) {
    rmSync(partial, { recursive: true, force: true });
    return warn(`localstripe not installed (on Debian: apt-get install python3-venv):\n${pip.stdout}${pip.stderr}`);
  }
  writeFileSync(join(partial, 'masthead-requirement.txt'), `${LOCALSTRIPE_REQUIREMENT}\n`);
  rmSync(target, { recursive: true, force: true });
  try {
    renameSync(partial, target);
  } catch {
    rmSync(partial, { recursive: true, force: true }); // a concurrent run renamed its copy first
  }
  return target;
}

// `go version -m` names the module, version and hash a binary was built from: a binary of
// another pin, or built from a module that does not match the pinned hash, is rebuilt.
function ensureStripeMock() {
  const fromEnv = process.env.MASTHEAD_STRIPE_MOCK_BIN;
  if (fromEnv) return isExecutable(fromEnv) ? resolve(fromEnv) : warn(`MASTHEAD_STRIPE_MOCK_BIN=${fromEnv} is not an executable file`);
  const target = join(binDir, 'stripe-mock');
  const go = findGo();
  const pinned = `mod\t${STRIPE_MOCK_MODULE}\t${STRIPE_MOCK_VERSION}\t${STRIPE_MOCK_SUM}`;
  const builtFromPin = (file) => !go || capture(go, ['version', '-m', file]).stdout.includes(pinned);
  if (isExecutable(target) && builtFromPin(target)) return target;
  if (!go) return warn('stripe-mock is missing and Go is not installed to build it (or set MASTHEAD_STRIPE_MOCK_BIN)');
  log(`building stripe-mock ${STRIPE_MOCK_VERSION} from the Go module proxy (1-2 min)`);
  const started = Date.now();
  const gobin = mkdtempSync(join(binDir, '.stripe-mock-'));
  try {
    const built = capture(go, ['install', `${STRIPE_MOCK_MODULE}@${STRIPE_MOCK_VERSION}`], {
      env: { ...goEnv(), GOBIN: gobin },
      cwd: tmpdir(),
    });
    const file = join(gobin, 'stripe-mock');
    if (!built.ok) return warn(`go install stripe-mock failed:\n${built.stdout}${built.stderr}`);
    if (!builtFromPin(file)) return warn(`stripe-mock was not built from ${STRIPE_MOCK_VERSION} ${STRIPE_MOCK_SUM}; not installed`);
    renameSync(file, target);
  } finally {
    rmSync(gobin, { recursive: true, force: true });
  }
  log(`built stripe-mock in ${Math.round((Date.now() - started) / 1000)} s`);
  return target;
}

// libs/local-infra runs FerretDB over its own PostgreSQL cluster (docs/adr/0090): Debian's
// server binaries live in /usr/lib/postgresql/N/bin, off PATH.
function findInitdb() {
  const fromEnv = process.env.MASTHEAD_POSTGRES_BIN_DIR;
  if (fromEnv) return isExecutable(join(fromEnv, 'initdb')) ? join(fromEnv, 'initdb') : undefined;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)) : [];
  const debian = versions
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => join(root, version, 'bin', 'initdb'))
    .find(isExecutable);
  return debian ?? which('initdb');
}

function ensurePostgres() {
  const found = findInitdb();
  if (found) return dirname(found);
  if (process.env.MASTHEAD_POSTGRES_BIN_DIR) fail(`MASTHEAD_POSTGRES_BIN_DIR=${process.env.MASTHEAD_POSTGRES_BIN_DIR} has no initdb`);
  if (process.getuid?.() !== 0 || !which('apt-get')) {
    fail('PostgreSQL (initdb) not found: install it (Debian: apt-get install postgresql) or set MASTHEAD_POSTGRES_BIN_DIR');
  }
  log('installing postgresql with apt-get');
  const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!run('apt-get', ['update', '-q'], { env: aptEnv }) || !run('apt-get', ['install', '-y', '-q', 'postgresql'], { env: aptEnv })) {
    fail('apt-get install postgresql failed');
  }
  const installed = findInitdb();
  if (!installed) fail('apt-get installed postgresql but no initdb was found under /usr/lib/postgresql');
  return dirname(installed);
}

// Billing's invoice tests read the PDF back with pdftotext (Debian poppler-utils, docs/adr/0143).
// Only those tests need it: a machine that cannot install it gets a warning, like the card-provider fakes.
function ensurePdfToText() {
  const found = which('pdftotext');
  if (found) return found;
  if (process.getuid?.() !== 0 || !which('apt-get'))
    return warn('pdftotext not found (Debian: apt-get install poppler-utils): invoice tests will fail');
  log('installing poppler-utils (pdftotext) with apt-get');
  const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const installed =
    run('apt-get', ['install', '-y', '-q', 'poppler-utils'], { env: aptEnv }) ||
    (run('apt-get', ['update', '-q'], { env: aptEnv }) && run('apt-get', ['install', '-y', '-q', 'poppler-utils'], { env: aptEnv }));
  if (!installed) return warn('apt-get install poppler-utils failed: invoice tests will fail');
  return which('pdftotext');
}

function writeToolsJson(tools) {
  const file = join(cacheDir, 'tools.json');
  const text = `${JSON.stringify(tools, null, 2)}\n`;
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  if (previous !== text) writeFileSync(file, text);
}

function installDeps() {
  const frozen = existsSync(join(repoRoot, 'pnpm-lock.yaml'));
  log(`pnpm install${frozen ? ' --frozen-lockfile' : ''}`);
  if (!run('pnpm', frozen ? ['install', '--frozen-lockfile'] : ['install'], { cwd: repoRoot })) fail('pnpm install failed');
}

function build() {
  log('turbo run build');
  const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1' };
  if (!run('pnpm', ['exec', 'turbo', 'run', 'build'], { cwd: repoRoot, env })) fail('build failed');
}

// Everything below (pnpm, turbo, the tools' checks) runs on the project's Node (.node-version,
// docs/adr/0186), installed into the cache from the npm registry when the machine's is another.
await underProjectNode(import.meta.url);

const flags = new Set(process.argv.slice(2));
for (const flag of flags) {
  if (!['--tools', '--deps', '--build'].includes(flag)) fail(`unknown flag ${flag} (use --tools, --deps or --build)`);
}
const wantBuild = flags.has('--build');
const wantDeps = wantBuild || flags.has('--deps');

mkdirSync(binDir, { recursive: true });
ensurePnpm();
const tools = { ferretdb: ensureFerretDb(), natsServer: ensureNatsServer() };
writeToolsJson(tools);
const postgresBinDir = ensurePostgres();
log(`tools ok: ferretdb=${tools.ferretdb} nats-server=${tools.natsServer} postgresql=${postgresBinDir}`);
const cardProviders = { localstripe: ensureLocalStripe(), stripeMock: ensureStripeMock() };
log(`card-provider fakes: localstripe=${cardProviders.localstripe ?? 'missing'} stripe-mock=${cardProviders.stripeMock ?? 'missing'}`);
log(`pdftotext=${ensurePdfToText() ?? 'missing'}`);
if (wantDeps) installDeps();
if (wantBuild) build();
