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
  /** Its Prometheus endpoint (the gateway's HTTP port, a service's METRICS_PORT). */
  metricsUrl: string;
}

export interface Topology {
  services: ProcessSpec[];
  /** The first gateway (the one on `config.port`). */
  gateway: ProcessSpec;
  /** Every gateway: the first, then its replicas on free ports. */
  gateways: ProcessSpec[];
  /** What every process shares; also given to the admin CLI. */
  sharedEnv: NodeJS.ProcessEnv;
}

export interface TopologyOptions {
  /** Processes per service and gateways (1 by default); a service's replicas share one `*_ADDR` list. */
  replicas?: number;
}

/** Entry files of the services and the gateway, as `npm run build` leaves them. */
export function entryPoints(repoRoot: string): { services: Record<ServiceName, string>; gateway: string } {
  const services = Object.fromEntries(SERVICES.map((service) => [service, join(repoRoot, 'services', service, 'dist', 'main.js')]));
  return { services: services as Record<ServiceName, string>, gateway: join(repoRoot, 'gateway', 'dist', 'main.js') };
}

/** `identity`, then `identity-2`, `identity-3`… */
const replicaName = (name: string, index: number): string => (index === 0 ? name : `${name}-${index + 1}`);

const freePorts = (count: number): Promise<number[]> => Promise.all(Array.from({ length: count }, () => freePort()));

/**
 * Allocates loopback ports per service replica (gRPC and metrics) and builds each process's
 * environment. `cardProviderUrl` (the local card provider) goes to billing only, as
 * CARDPROVIDER_API_BASE.
 */
export async function planTopology(
  config: DevstackConfig,
  infra: { mongoUrl: string; natsUrl: string; cardProviderUrl?: string | undefined },
  baseEnv: NodeJS.ProcessEnv,
  options: TopologyOptions = {},
): Promise<Topology> {
  const replicas = options.replicas ?? 1;
  const grpcPorts = await Promise.all(SERVICES.map(() => freePorts(replicas)));
  const metricsPorts = await Promise.all(SERVICES.map(() => freePorts(replicas)));
  const gatewayPorts = [config.port, ...(await freePorts(replicas - 1))];
  const addresses = Object.fromEntries(
    SERVICES.map((service, i) => [`${service.toUpperCase()}_ADDR`, grpcPorts[i]!.map((port) => `127.0.0.1:${port}`).join(',')]),
  );
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
  const services = SERVICES.flatMap((service, i) =>
    grpcPorts[i]!.map((port, replica) => ({
      name: replicaName(service, replica),
      entry: entries.services[service],
      env: {
        ...sharedEnv,
        GRPC_LISTEN: `127.0.0.1:${port}`,
        METRICS_PORT: String(metricsPorts[i]![replica]),
        METRICS_HOST: '127.0.0.1',
        ...(service === 'billing' && infra.cardProviderUrl ? { CARDPROVIDER_API_BASE: infra.cardProviderUrl } : {}),
      },
      metricsUrl: `http://127.0.0.1:${metricsPorts[i]![replica]}/metrics`,
    })),
  );
  const gateways = gatewayPorts.map((port, replica) => ({
    name: replicaName('gateway', replica),
    entry: entries.gateway,
    env: { ...sharedEnv, PORT: String(port), HOST: config.host },
    metricsUrl: `http://${urlHost(config.host)}:${port}/metrics`,
  }));
  return { sharedEnv, services, gateway: gateways[0]!, gateways };
}

/** The address clients use: a wildcard listen address is reached over loopback. */
export function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
