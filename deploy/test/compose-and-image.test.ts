// Static checks of deploy/compose.yaml, deploy/Dockerfile and its .dockerignore: no Docker engine
// is needed (nor available here), so these read the files and check them against the workspace.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADDRESS_VARIABLES, ALLOWED_ENV, processOf, SERVICE_NAMES, type ProcessName } from './support/env.js';
import { deployDir, isRecord, parseYamlFile, repoRoot } from './support/yaml-files.js';

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string | number | null>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  read_only?: boolean;
  profiles?: string[];
}

const composeFile = join(deployDir, 'compose.yaml');
const [composeDocument] = parseYamlFile(composeFile, { merge: true });
const compose = (isRecord(composeDocument?.value) ? composeDocument.value : {}) as { services?: Record<string, ComposeService> };
const services = compose.services ?? {};
const PROCESSES: ProcessName[] = [...SERVICE_NAMES, 'gateway'];

const dockerfile = readFileSync(join(deployDir, 'Dockerfile'), 'utf8');
/** Dockerfile instructions with line continuations joined and comments dropped. */
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
const stages = instructions.reduce<string[][]>((all, line) => {
  if (/^FROM\s/i.test(line)) all.push([line]);
  else all.at(-1)?.push(line);
  return all;
}, []);
const rootPackage = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { packageManager: string };
const nodeVersion = readFileSync(join(repoRoot, '.node-version'), 'utf8').trim();

describe('compose.yaml', () => {
  it('runs mongo:7, nats:2.10 with JetStream, and the seven processes from one image', () => {
    expect(services['mongo']?.image).toMatch(/^mongo:7(\.|$)/);
    expect(services['nats']?.image).toMatch(/^nats:2\.10(\.|-|$)/);
    expect(services['nats']?.command).toContain('-js');
    const running = Object.entries(services).filter(([, service]) => service.image === 'masthead:latest' && !service.profiles);
    expect(running.map(([name]) => name).sort()).toEqual([...PROCESSES].sort());
    for (const [name, service] of running) {
      expect(processOf(service.command ?? []), name).toBe(name);
      expect(service.build).toEqual({ context: '..', dockerfile: 'deploy/Dockerfile' });
      expect(service.read_only, name).toBe(true);
    }
    expect(existsSync(resolve(deployDir, '..', 'deploy/Dockerfile'))).toBe(true);
  });

  it('gives each process only variables it reads, and wires addresses to compose services', () => {
    for (const [name, service] of Object.entries(services)) {
      const process = processOf([...(service.entrypoint ?? []), ...(service.command ?? [])]);
      if (!process) continue;
      const environment = service.environment ?? {};
      for (const variable of Object.keys(environment)) expect(ALLOWED_ENV[process].has(variable), `${name}: ${variable}`).toBe(true);
      for (const [target, variable] of Object.entries(ADDRESS_VARIABLES)) {
        if (variable in environment) expect(environment[variable], `${name}: ${variable}`).toBe(`${target}:50051`);
      }
      if (process !== 'gateway' && process !== 'admin') {
        expect(environment['GRPC_LISTEN']).toBe('0.0.0.0:50051');
        expect(String(environment['MONGO_URL'])).toMatch(/^mongodb:\/\/mongo:27017/);
        expect(environment['NATS_URL']).toBe('nats://nats:4222');
        // One NATS server holds one replica of the event stream.
        expect(environment['EVENT_STREAM_REPLICAS']).toBe('1');
        expect(Object.keys(service.depends_on ?? {}).sort()).toEqual(['mongo', 'nats']);
      }
    }
    for (const variable of Object.values(ADDRESS_VARIABLES)) expect(services['gateway']?.environment?.[variable]).toBeDefined();
  });

  it('publishes the gateway on 8080 and checks its readiness', () => {
    expect(services['gateway']?.ports).toEqual(['8080:8080']);
    expect(services['gateway']?.environment?.['PORT']).toBe('8080');
    expect(services['gateway']?.environment?.['HOST']).toBe('0.0.0.0');
    expect(JSON.stringify(services['gateway'])).toContain('/readyz');
  });

  it('offers the admin CLI as a one-off service', () => {
    expect(services['admin']?.entrypoint).toEqual(['node', 'tools/admin/dist/cli.js']);
    expect(services['admin']?.profiles).toEqual(['tools']);
  });
});

describe('Dockerfile', () => {
  it("builds on the project's Node (.node-version, bookworm-slim) with the workspace pnpm, a frozen lockfile and turbo", () => {
    expect(dockerfile).toMatch(new RegExp(`^ARG NODE_IMAGE=node:${nodeVersion.replace(/\./g, '\\.')}-bookworm-slim$`, 'm'));
    // Every stage starts from that image or from an earlier stage.
    const named: string[] = [];
    for (const [from = ''] of stages) {
      const [, image, name] = /^FROM (\S+)(?: AS (\S+))?$/i.exec(from) ?? [];
      expect(image === '${NODE_IMAGE}' || named.includes(image ?? ''), from).toBe(true);
      if (name) named.push(name);
    }
    expect(stages.at(-1)?.[0]).toMatch(/^FROM \$\{NODE_IMAGE\} AS runtime$/);
    const pnpmVersion = rootPackage.packageManager.replace(/^pnpm@/, '').replace(/\+.*$/, '');
    expect(instructions).toContainEqual(expect.stringMatching(new RegExp(`^RUN npm i -g pnpm@${pnpmVersion.replace(/\./g, '\\.')}( |$)`)));
    expect(instructions.some((line) => /pnpm install --frozen-lockfile/.test(line))).toBe(true);
    expect(instructions.some((line) => /^RUN pnpm exec turbo run build\b/.test(line))).toBe(true);
  });

  it('builds packages that exist, and copies files that exist', () => {
    const build = instructions.find((line) => /^RUN pnpm exec turbo run build\b/.test(line)) ?? '';
    const filters = [...build.matchAll(/--filter='?([^' ]+)'?/g)].map((match) => match[1] ?? '');
    const names = new Set(
      ['gateway', 'tools/admin', ...readdirSync(join(repoRoot, 'services')).map((service) => `services/${service}`)]
        .filter((dir) => existsSync(join(repoRoot, dir, 'package.json')))
        .map((dir) => (JSON.parse(readFileSync(join(repoRoot, dir, 'package.json'), 'utf8')) as { name: string }).name),
    );
    for (const filter of filters) {
      if (filter.startsWith('./')) expect(existsSync(join(repoRoot, filter.replace(/\/\*$/, ''))), filter).toBe(true);
      else expect(names.has(filter), filter).toBe(true);
    }
    for (const line of instructions.filter((candidate) => /^COPY (?!--from)/.test(candidate))) {
      const sources = line
        .split(/\s+/)
        .slice(1, -1)
        .filter((word) => !word.startsWith('--'));
      for (const source of sources) expect(existsSync(join(repoRoot, source)), `${source} in the build context`).toBe(true);
    }
  });

  it('runs as a numeric non-root user, the gateway by default', () => {
    const runtime = stages.at(-1) ?? [];
    const user = runtime.find((line) => line.startsWith('USER '));
    expect(user).toMatch(/^USER [1-9]\d*(:\d+)?$/);
    expect(runtime.at(-1)).toBe('CMD ["node", "gateway/dist/main.js"]');
  });

  it('has a BuildKit .dockerignore that keeps host artefacts out of the context', () => {
    const ignore = readFileSync(join(deployDir, 'Dockerfile.dockerignore'), 'utf8').split('\n');
    for (const pattern of ['**/node_modules', '**/dist', '**/src/gen', '.git', '**/.env']) expect(ignore).toContain(pattern);
    for (const kept of ['pnpm-lock.yaml', 'pnpm-workspace.yaml', '.npmrc', 'proto', 'package.json']) expect(ignore).not.toContain(kept);
  });
});
