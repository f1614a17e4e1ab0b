import { z } from 'zod';

/** host:port, as used by gRPC listen and dial addresses. */
export const hostPort = z
  .string()
  .regex(/^[^\s:]+:\d{1,5}$/, 'expected host:port')
  .refine((value) => Number(value.split(':').pop()) <= 65535, 'port out of range');

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Settings every process reads. */
export const commonEnv = {
  LOG_LEVEL: logLevel,
  MASTHEAD_ENV: z.enum(['development', 'production', 'test']).default('production'),
  /** Default deadline of internal gRPC calls. */
  GRPC_DEADLINE_MS: positiveInt(5000),
};

/** Settings of a gRPC service process. */
export const serviceEnv = {
  ...commonEnv,
  GRPC_LISTEN: hostPort.default('0.0.0.0:50051'),
  MONGO_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'expected a mongodb:// URL')
    .default('mongodb://127.0.0.1:27017'),
  MONGO_DB_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]*$/, 'letters, digits, _ and - only')
    .default('masthead_'),
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** Replicas of the JetStream event stream when a service creates it (3 on a NATS cluster). */
  EVENT_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** How often undelivered events are retried from the outbox. */
  OUTBOX_RETRY_MS: positiveInt(2000),
  /** The Prometheus endpoint `GET /metrics` of a service (docs/adr/0183); 0 turns it off. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  METRICS_HOST: z.string().default('0.0.0.0'),
  /** How long a write may take to commit after its event was prepared (docs/adr/0180). */
  OUTBOX_PREPARED_GRACE_MS: positiveInt(30_000),
  /** Bench mode only: count database commands and write them here (tools/bench, issue 14). */
  DB_COMMAND_COUNTS_DIR: z.string().min(1).optional(),
};

/** A dial address: host:port, or replicas as a comma-separated list of IPv4 host:port. */
const dialAddress = z
  .string()
  .refine((value) => value.split(',').every((part) => hostPort.safeParse(part).success), 'expected host:port[,host:port…]');

/** Dial addresses of the six services; each process reads the ones it calls. */
export const serviceAddresses = {
  ACCOUNTS_ADDR: dialAddress.default('127.0.0.1:50051'),
  IDENTITY_ADDR: dialAddress.default('127.0.0.1:50052'),
  CATALOG_ADDR: dialAddress.default('127.0.0.1:50053'),
  BILLING_ADDR: dialAddress.default('127.0.0.1:50054'),
  COMMUNITY_ADDR: dialAddress.default('127.0.0.1:50055'),
  INTEGRATIONS_ADDR: dialAddress.default('127.0.0.1:50056'),
};
