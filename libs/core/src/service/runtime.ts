import type { Connection } from 'mongoose';
import type { Logger } from 'pino';
import { connectNats, createEventPublisher, settledNow, type EventPublisher, type NatsLink } from '../events/index.js';
import { startGrpcServer, type ServiceRegistration } from '../grpc/index.js';
import { createLogger } from '../logging/index.js';
import { startMetricsServer } from '../metrics/index.js';
import { connectMongo, countCommands } from '../mongo/index.js';

/** The settings every service process shares (see `serviceEnv`). */
export interface ServiceRuntimeConfig {
  LOG_LEVEL: string;
  GRPC_LISTEN: string;
  MONGO_URL: string;
  MONGO_DB_PREFIX: string;
  NATS_URL: string;
  OUTBOX_RETRY_MS: number;
  OUTBOX_PREPARED_GRACE_MS: number;
  METRICS_PORT: number;
  METRICS_HOST: string;
  EVENT_STREAM_REPLICAS: number;
  /** Bench mode: where database command counts go (`countCommands`); unset otherwise. */
  DB_COMMAND_COUNTS_DIR?: string;
}

/** Connections a service's composition root wires its repositories and handlers from. */
export interface ServiceRuntime {
  name: string;
  logger: Logger;
  db: Connection;
  /** The connection, or the one being made while NATS is down (docs/adr/0182). */
  nats: NatsLink;
  events: EventPublisher;
  /** Where `GET /metrics` is served (docs/adr/0183); port 0: nowhere. */
  metrics: { port: number; host: string };
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
  const { link: nats } = await openNatsLink(config.NATS_URL, `masthead-${name}`, log);
  const events = await createEventPublisher({
    source: name,
    connection: db,
    nats,
    logger: log,
    retryIntervalMs: config.OUTBOX_RETRY_MS,
    preparedGraceMs: config.OUTBOX_PREPARED_GRACE_MS,
    streamReplicas: config.EVENT_STREAM_REPLICAS,
  });
  return { name, logger: log, db, nats, events, metrics: { port: config.METRICS_PORT, host: config.METRICS_HOST } };
}

// A reachable NATS answers within this; an unreachable one does not hold the service back.
const NATS_BOOT_WAIT_MS = 3_000;

/**
 * Connects to NATS and keeps reconnecting for ever. A NATS that is down at start does not keep
 * the service from starting: it gets the connection still being made, its events wait in the
 * outbox until NATS comes, and its cache subscriptions start then.
 */
async function openNatsLink(servers: string, name: string, logger: Logger): Promise<{ link: NatsLink }> {
  const connecting = connectNats(servers, name);
  const timer = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), NATS_BOOT_WAIT_MS).unref());
  const connection = await Promise.race([connecting, timer]);
  if (connection) return { link: connection };
  logger.warn({ servers }, 'NATS is unreachable; starting anyway, events wait in the outbox');
  // Wrapped: an async function's result that is a promise is waited for, and the service would
  // not start until NATS is back (a service restarted during an outage answered nothing).
  return { link: connecting };
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
  const metrics = runtime.metrics.port > 0 ? await startMetricsServer(runtime.metrics.port, runtime.metrics.host) : undefined;
  runtime.logger.info({ port: server.port, metrics_port: metrics?.port }, `${runtime.name} service listening`);
  return {
    port: server.port,
    async stop() {
      await server.stop();
      await metrics?.close();
      await onStop();
      await runtime.events.stop();
      const nats = await settledNow(runtime.nats);
      if (nats) await nats.drain().catch(() => undefined);
      else void Promise.resolve(runtime.nats).then((late) => late.close());
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
