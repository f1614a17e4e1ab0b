import type { Connection } from 'mongoose';
import { connect, type NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { createEventPublisher, type EventPublisher } from '../events/index.js';
import { startGrpcServer, type ServiceRegistration } from '../grpc/index.js';
import { createLogger } from '../logging/index.js';
import { connectMongo, countCommands } from '../mongo/index.js';

/** The settings every service process shares (see `serviceEnv`). */
export interface ServiceRuntimeConfig {
  LOG_LEVEL: string;
  GRPC_LISTEN: string;
  MONGO_URL: string;
  MONGO_DB_PREFIX: string;
  NATS_URL: string;
  OUTBOX_RETRY_MS: number;
  EVENT_STREAM_REPLICAS: number;
  /** Bench mode: where database command counts go (`countCommands`); unset otherwise. */
  DB_COMMAND_COUNTS_DIR?: string;
}

/** Connections a service's composition root wires its repositories and handlers from. */
export interface ServiceRuntime {
  name: string;
  logger: Logger;
  db: Connection;
  nats: NatsConnection;
  events: EventPublisher;
}

export interface RunningService {
  port: number;
  stop(): Promise<void>;
}

export async function openServiceRuntime(name: string, config: ServiceRuntimeConfig, logger?: Logger): Promise<ServiceRuntime> {
  const log = logger ?? createLogger({ name, level: config.LOG_LEVEL });
  const countsDir = config.DB_COMMAND_COUNTS_DIR;
  const db = await connectMongo({ url: config.MONGO_URL, dbName: `${config.MONGO_DB_PREFIX}${name}`, monitorCommands: !!countsDir });
  if (countsDir) countCommands(db, name, countsDir);
  const nats = await connect({ servers: config.NATS_URL, name: `masthead-${name}`, maxReconnectAttempts: -1 });
  const events = await createEventPublisher({
    source: name,
    connection: db,
    nats,
    logger: log,
    retryIntervalMs: config.OUTBOX_RETRY_MS,
    streamReplicas: config.EVENT_STREAM_REPLICAS,
  });
  return { name, logger: log, db, nats, events };
}

/**
 * Starts the gRPC server over an opened runtime. `stop` drains calls first, then the event relay,
 * then closes NATS and MongoDB, so that nothing a caller was told succeeded is cut off.
 */
export async function serveRuntime(
  runtime: ServiceRuntime,
  listen: string,
  services: ServiceRegistration<unknown>[],
  onStop: () => Promise<void> = async () => undefined,
): Promise<RunningService> {
  const server = await startGrpcServer({ listen, logger: runtime.logger, services });
  runtime.logger.info({ port: server.port }, `${runtime.name} service listening`);
  return {
    port: server.port,
    async stop() {
      await server.stop();
      await onStop();
      await runtime.events.stop();
      await runtime.nats.drain().catch(() => undefined);
      await runtime.db.close();
    },
  };
}

/** Process entry: runs until SIGTERM/SIGINT, then stops within the orchestrator's 15 s budget. */
export function runUntilSignalled(start: () => Promise<RunningService>, logger: Logger): void {
  start().then(
    (running) => {
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'shutting down');
        const hardStop = setTimeout(() => process.exit(1), 12_000);
        hardStop.unref();
        running.stop().then(
          () => process.exit(0),
          (error: unknown) => {
            logger.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.on('SIGINT', () => shutdown('SIGINT'));
    },
    (error: unknown) => {
      logger.fatal({ err: error }, 'failed to start');
      process.exit(1);
    },
  );
}
