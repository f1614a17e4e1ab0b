import type { Interceptor } from '@grpc/grpc-js';
import { ALL_CLIENTS, createClients, processAddresses, type Clients, type ClientName, type ProcessName } from '@masthead/core/clients';
import type { GatewayConfig } from './config.js';

/** The six services of OPERATIONS.md; each runs as one process. */
export type ServiceName = ProcessName;

/** One client per gRPC service the gateway calls: every entry of the shared table (ADR 0097). */
export type ServiceClients = Clients<ClientName> & { close(): void };

export const serviceAddressesOf = (config: GatewayConfig): Record<ServiceName, string> => processAddresses(config);

/** One long-lived channel per service, reused by every request. */
export function createServiceClients(config: GatewayConfig, interceptors: Interceptor[] = []): ServiceClients {
  return createClients(ALL_CLIENTS, serviceAddressesOf(config), { defaultDeadlineMs: config.GRPC_DEADLINE_MS, interceptors });
}
