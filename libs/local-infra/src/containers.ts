import { existsSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';

import type * as testcontainers from 'testcontainers';

import type { Infrastructure } from './infrastructure.js';

type Testcontainers = typeof testcontainers;

// Images of what production runs (DESIGN.md: MongoDB 7, NATS JetStream).
const MONGO_IMAGE = 'mongo:7';
const NATS_IMAGE = 'nats:2.10';

/**
 * Loads testcontainers and returns it only when it reports a working container runtime.
 * Never throws. Importing it costs ~0.5 s, so machines with no sign of a runtime skip it.
 */
export async function loadContainerRuntime(env: NodeJS.ProcessEnv = process.env): Promise<Testcontainers | undefined> {
  if (!mayHaveContainerRuntime(env)) return undefined;
  try {
    const loaded = await import('testcontainers');
    await loaded.getContainerRuntimeClient();
    return loaded;
  } catch {
    return undefined; // missing package or "Could not find a working container runtime strategy"
  }
}

/** Starts MongoDB 7 and NATS 2.10 (JetStream) containers; stops both if either fails. */
export async function startContainers(runtime: Testcontainers): Promise<Infrastructure> {
  const { GenericContainer, Wait } = runtime;
  const [mongo, nats] = await Promise.allSettled([
    new GenericContainer(MONGO_IMAGE)
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
      .start(),
    new GenericContainer(NATS_IMAGE)
      .withCommand(['-js'])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start(),
  ]);
  if (mongo.status === 'rejected' || nats.status === 'rejected') {
    await Promise.allSettled([mongo, nats].map((result) => (result.status === 'fulfilled' ? result.value.stop() : undefined)));
    const reason: unknown = mongo.status === 'rejected' ? mongo.reason : nats.status === 'rejected' ? nats.reason : undefined;
    throw new Error(`could not start containers: ${reason instanceof Error ? reason.message : String(reason)}`);
  }
  const mongoContainer = mongo.value;
  const natsContainer = nats.value;
  return {
    kind: 'containers',
    mongoUrl: `mongodb://${mongoContainer.getHost()}:${mongoContainer.getMappedPort(27017)}/`,
    natsUrl: `nats://${natsContainer.getHost()}:${natsContainer.getMappedPort(4222)}`,
    async stop() {
      await Promise.allSettled([mongoContainer.stop(), natsContainer.stop()]);
    },
  };
}

// Mirrors the endpoints testcontainers 11 probes (container-runtime/strategies): DOCKER_HOST,
// ~/.testcontainers.properties, and the rootful and rootless Docker sockets.
function mayHaveContainerRuntime(env: NodeJS.ProcessEnv): boolean {
  if (env.DOCKER_HOST || process.platform === 'win32') return true;
  const home = homedir();
  const candidates = [
    join(home, '.testcontainers.properties'),
    '/var/run/docker.sock',
    env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'docker.sock') : '',
    join(home, '.docker', 'run', 'docker.sock'),
    join(home, '.docker', 'desktop', 'docker.sock'),
    join('/run', 'user', String(userInfo().uid), 'docker.sock'),
  ];
  return candidates.some((path) => path !== '' && existsSync(path));
}
