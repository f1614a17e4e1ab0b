import { join } from 'node:path';

import { freePort } from '@masthead/local-infra';

import type { DevstackConfig } from './config.js';

/** The gRPC services, in the order their address variables are listed. */
export const SERVICES = ['accounts', 'identity', 'catalog', 'billing', 'community', 'integrations'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** A process of the stack: name, entry file and its environment. */
export interface ProcessSpec {
  name: string;
  entry: string;
  env: NodeJS.ProcessEnv;
}

export interface Topology {
  services: ProcessSpec[];
  gateway: ProcessSpec;
  /** What every process shares; also given to the admin CLI. */
  sharedEnv: NodeJS.ProcessEnv;
}

/** Entry files of the services and the gateway, as `npm run build` leaves them. */
export function entryPoints(repoRoot: string): { services: Record<ServiceName, string>; gateway: string } {
  const services = Object.fromEntries(SERVICES.map((service) => [service, join(repoRoot, 'services', service, 'dist', 'main.js')]));
  return { services: services as Record<ServiceName, string>, gateway: join(repoRoot, 'gateway', 'dist', 'main.js') };
}

/**
 * Allocates a loopback port per service and builds each process's environment. `cardProviderUrl`
 * (the local card provider) goes to billing only, as CARDPROVIDER_API_BASE.
 */
export async function planTopology(
  config: DevstackConfig,
  infra: { mongoUrl: string; natsUrl: string; cardProviderUrl?: string | undefined },
  baseEnv: NodeJS.ProcessEnv,
): Promise<Topology> {
  const ports = await Promise.all(SERVICES.map(() => freePort()));
  const addresses = Object.fromEntries(SERVICES.map((service, i) => [`${service.toUpperCase()}_ADDR`, `127.0.0.1:${ports[i]}`]));
  // PORT and HOST are the gateway's; a service must not mistake them for its own.
  const inherited = { ...baseEnv };
  delete inherited.PORT;
  delete inherited.HOST;
  const sharedEnv: NodeJS.ProcessEnv = {
    ...inherited,
    LOG_LEVEL: config.logLevel,
    MASTHEAD_ENV: 'development',
    MONGO_URL: infra.mongoUrl,
    NATS_URL: infra.natsUrl,
    ...addresses,
  };
  const entries = entryPoints(config.repoRoot);
  return {
    sharedEnv,
    services: SERVICES.map((service, i) => ({
      name: service,
      entry: entries.services[service],
      env: {
        ...sharedEnv,
        GRPC_LISTEN: `127.0.0.1:${ports[i]}`,
        ...(service === 'billing' && infra.cardProviderUrl ? { CARDPROVIDER_API_BASE: infra.cardProviderUrl } : {}),
      },
    })),
    gateway: {
      name: 'gateway',
      entry: entries.gateway,
      env: { ...sharedEnv, PORT: String(config.port), HOST: config.host },
    },
  };
}
