import type { Interceptor } from '@grpc/grpc-js';
import { randomBytes } from 'node:crypto';
import { loadAccountsConfig, startAccountsService } from '@masthead/accounts';
import { loadBillingConfig, startBillingService } from '@masthead/billing';
import { loadCatalogConfig, startCatalogService } from '@masthead/catalog';
import { loadCommunityConfig, startCommunityService } from '@masthead/community';
import { createClients, type Clients } from '@masthead/core/clients';
import { createLogger, type Logger, type LoggerOptions } from '@masthead/core/logging';
import type { RunningService } from '@masthead/core/service';
import { loadGatewayConfig, startGateway } from '@masthead/gateway';
import { loadIdentityConfig, startIdentityService } from '@masthead/identity';
import { loadIntegrationsConfig, startIntegrationsService } from '@masthead/integrations';
import { freePort } from '@masthead/local-infra';

export interface StackOptions {
  mongoUrl: string;
  natsUrl: string;
  /** Extra environment for every process (e.g. cheaper argon2 parameters in a unit test). */
  env?: Record<string, string>;
  /** Client interceptors installed in the gateway (hop counting). */
  gatewayInterceptors?: Interceptor[];
  logLevel?: string;
  /** Where every process's log records go (standard output by default): the fuzz test reads them back. */
  logDestination?: LoggerOptions['destination'];
}

/** Operator clients over the internal APIs, for arranging test data as an operator would. */
const OPERATOR_CLIENTS = ['accounts', 'serviceAccounts', 'identity', 'plans', 'pricings', 'memberships'] as const;
export type OperatorClients = Clients<(typeof OPERATOR_CLIENTS)[number]> & { close(): void };

export interface Stack {
  baseUrl: string;
  gatewayUrl: string;
  /** Database prefix of this stack: each stack has its own databases. */
  dbPrefix: string;
  env: Record<string, string>;
  operator: OperatorClients;
  /**
   * Stops one in-process service, for tests that run it as a process of their own on its address
   * instead (a billing process killed mid-payment, two billing replicas: billing-process.ts).
   */
  stopService(name: ServiceName): Promise<void>;
  stop(): Promise<void>;
}

const SERVICES = ['accounts', 'identity', 'catalog', 'billing', 'community', 'integrations'] as const;
export type ServiceName = (typeof SERVICES)[number];

type Starter = (env: NodeJS.ProcessEnv, logger: Logger) => Promise<RunningService>;

const STARTERS: Record<ServiceName, Starter> = {
  accounts: (env, logger) => startAccountsService(loadAccountsConfig(env), logger),
  identity: (env, logger) => startIdentityService(loadIdentityConfig(env), logger),
  catalog: (env, logger) => startCatalogService(loadCatalogConfig(env), logger),
  billing: (env, logger) => startBillingService(loadBillingConfig(env), logger),
  community: (env, logger) => startCommunityService(loadCommunityConfig(env), logger),
  integrations: (env, logger) => startIntegrationsService(loadIntegrationsConfig(env), logger),
};

/**
 * Starts the six services and the gateway in this process, each on its own loopback port, over
 * real FerretDB and NATS, with a fresh database prefix. Ports are reserved first so that every
 * service knows every address before any starts.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  // A reserved port can be taken by another process before a server binds it; try new ones.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startStackOnce(options);
    } catch (error) {
      if (attempt >= 3 || !isRetryable(error)) throw error;
      // Said on stderr: a retry hides the cause from the file's results, and the cause is news.
      process.stderr.write(`test stack: attempt ${attempt} failed, starting again on new ports: ${String(error)}\n`);
    }
  }
}

const isRetryable = (error: unknown): boolean =>
  /EADDRINUSE|No address added out of total/.test(error instanceof Error ? error.message : String(error));

async function startStackOnce(options: StackOptions): Promise<Stack> {
  const ports = await Promise.all([...SERVICES, 'gateway'].map(() => freePort()));
  const addressOf = (index: number) => `127.0.0.1:${ports[index]}`;
  const dbPrefix = `t${randomBytes(4).toString('hex')}_`;
  const env: Record<string, string> = {
    MASTHEAD_ENV: 'test',
    LOG_LEVEL: options.logLevel ?? process.env['TEST_LOG_LEVEL'] ?? 'silent',
    MONGO_URL: options.mongoUrl,
    MONGO_DB_PREFIX: dbPrefix,
    NATS_URL: options.natsUrl,
    OUTBOX_RETRY_MS: '500',
    // Six services in one process: no metrics listeners (the process registry is one anyway).
    METRICS_PORT: '0',
    // Tests arrange states in the databases directly, which no announcement reports; the
    // session-check cache has its own tests (tests/e2e/test/authentication-cache.test.ts).
    AUTH_CACHE_TTL_MS: '0',
    // Likewise identity's profile cache (ADR 0191; tests/e2e/test/profile-cache.test.ts).
    PROFILE_CACHE_TTL_MS: '0',
    // And the member path's credential reads (ADR 0216).
    CREDENTIALS_CACHE_TTL_MS: '0',
    // Likewise the gateway's plan answers (ADR 0209; tests/e2e/test/plan-read-cache.test.ts).
    PLAN_CACHE_TTL_MS: '0',
    ...Object.fromEntries(SERVICES.map((name, index) => [`${name.toUpperCase()}_ADDR`, addressOf(index)])),
    ...options.env,
  };
  const logger = createLogger({ name: 'stack', level: env['LOG_LEVEL'] ?? 'silent', destination: options.logDestination });
  const running: RunningService[] = [];
  const byName = new Map<ServiceName, RunningService>();
  const stopAll = async () => {
    await Promise.allSettled(running.reverse().map((service) => service.stop()));
  };
  try {
    // Settled, not raced: when one service cannot bind, the others that did are stopped too.
    const outcomes = await Promise.allSettled(
      SERVICES.map((name, index) => STARTERS[name]({ ...env, GRPC_LISTEN: addressOf(index) }, logger.child({ name }))),
    );
    outcomes.forEach((outcome, index) => {
      if (outcome.status !== 'fulfilled') return;
      running.push(outcome.value);
      byName.set(SERVICES[index]!, outcome.value);
    });
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    const gateway = await startGateway(
      loadGatewayConfig({ ...env, HOST: '127.0.0.1', PORT: String(ports[SERVICES.length]) }),
      logger.child({ name: 'gateway' }),
      { interceptors: options.gatewayInterceptors ?? [] },
    );
    running.push(gateway);
  } catch (error) {
    await stopAll();
    throw error;
  }
  const clientOptions = { defaultDeadlineMs: 10_000 };
  const operator: OperatorClients = createClients(
    OPERATOR_CLIENTS,
    { accounts: env['ACCOUNTS_ADDR']!, identity: env['IDENTITY_ADDR']!, catalog: env['CATALOG_ADDR']! },
    clientOptions,
  );
  const gatewayUrl = `http://127.0.0.1:${ports[SERVICES.length]}`;
  return {
    baseUrl: `${gatewayUrl}/api/v1`,
    gatewayUrl,
    dbPrefix,
    env,
    operator,
    async stopService(name) {
      const service = byName.get(name);
      if (!service) return;
      byName.delete(name);
      running.splice(running.indexOf(service), 1);
      await service.stop();
    },
    async stop() {
      operator.close();
      await stopAll();
    },
  };
}
