import { createServer } from 'node:http';
import type { Interceptor } from '@grpc/grpc-js';
import type { Logger } from '@masthead/core/logging';
import { listenOn } from '@masthead/core/service';
import express from 'express';
import { AuthenticationCache, withAuthenticationCache } from './auth/authentication-cache.js';
import { ResourceDirectory } from '@masthead/core/resources';
import { ServiceAccountUsage } from './auth/service-account-usage.js';
import { ServiceKeyResolver } from './auth/service-key-resolver.js';
import { SharedChecks } from './auth/shared-checks.js';
import { connectNats, StreamSender } from '@masthead/core/events';
import { PlanReadCache, withPlanReadCache } from './catalog/plan-read-cache.js';
import { createServiceClients, serviceAddressesOf } from './clients.js';
import { KeySetCache, keySetEndpoint } from './entitlements/key-set.js';
import type { GatewayConfig } from './config.js';
import { UserEventIntake, withUserEventIntake } from './events/user-event-intake.js';
import { accessLog } from './http/access-log.js';
import { bodyDecoder } from './http/body.js';
import { answerClientError } from './http/client-error.js';
import { cors } from './http/cors.js';
import { errorRenderer, routeNotFound } from './http/envelope.js';
import { healthRouter } from './http/health.js';
import { metricsEndpoint, requestMetrics } from './http/metrics.js';
import { openApiEndpoint } from './http/openapi.js';
import { requestId } from './http/request-id.js';
import { buildApiRouter } from './routes/router.js';
import { ROUTES } from './routes/table.js';

export type { GatewayConfig } from './config.js';
export { gatewayEnv, loadGatewayConfig } from './config.js';
export { ROUTES, type RouteDefinition } from './routes/table.js';
export { providerIdFields, type ProviderIdField, type ProviderObjectKind } from './openapi/hints.js';

/** How long a direct publish waits for JetStream before integrations takes the event (as its publisher waits). */
const EVENT_ACK_TIMEOUT_MS = 1_000;

export interface GatewayOptions {
  /** Client interceptors, e.g. the call counter of the hop-count test. */
  interceptors?: Interceptor[];
}

export interface RunningGateway {
  port: number;
  stop(): Promise<void>;
}

/** Composition root of the gateway: clients → resolver → shared checks → express app. */
export async function startGateway(config: GatewayConfig, logger: Logger, options: GatewayOptions = {}): Promise<RunningGateway> {
  const clients = createServiceClients(config, options.interceptors);
  const resources = new ResourceDirectory({ accounts: clients.accounts, ttlMs: config.RESOURCE_CACHE_TTL_MS });
  // NATS only invalidates caches: the gateway starts and serves without it (its subscriptions
  // start once it connects; until then cached entries expire by their TTL).
  const nats = connectNats(config.NATS_URL, 'masthead-gateway');
  resources.listen(nats, logger);
  const authentication = config.AUTH_CACHE_TTL_MS > 0 ? new AuthenticationCache(config.AUTH_CACHE_TTL_MS) : null;
  if (authentication) {
    authentication.listen(nats, logger);
    clients.identity = withAuthenticationCache(clients.identity, authentication);
  }
  if (config.PLAN_CACHE_TTL_MS > 0) {
    const planReads = new PlanReadCache(config.PLAN_CACHE_TTL_MS);
    planReads.listen(nats, logger);
    clients.plans = withPlanReadCache(clients.plans, planReads);
  }
  const stream = new StreamSender(nats, 'gateway', EVENT_ACK_TIMEOUT_MS);
  const userEvents = new UserEventIntake({ publicEvents: clients.publicEvents, stream, logger }, config.EVENT_NAMES_CACHE_TTL_MS);
  userEvents.listen(nats, logger);
  clients.publicEvents = withUserEventIntake(clients.publicEvents, userEvents);
  const serviceKeys = new ServiceKeyResolver(clients.serviceAccounts, config.SERVICE_KEY_CACHE_TTL_MS);
  serviceKeys.listen(nats, logger);
  const usage = new ServiceAccountUsage(clients.serviceAccounts, config.SERVICE_USAGE_FLUSH_MS, logger);

  // After SIGTERM: not ready, and every answer closes its connection, so that keep-alive clients
  // reconnect elsewhere before the listener goes (docs/adr/0182).
  let draining = false;
  const app = express();
  app.disable('x-powered-by');
  app.use((_req, res, next) => {
    if (draining) res.setHeader('connection', 'close');
    next();
  });
  app.set('trust proxy', config.TRUST_PROXY);
  // Bracket maps such as filter[Plans.id]=3 need the extended query parser.
  app.set('query parser', 'extended');
  app.use(requestId(config.GRPC_DEADLINE_MS));
  app.use(accessLog(logger));
  app.use(requestMetrics());
  app.use(healthRouter(serviceAddressesOf(config), () => draining));
  app.get('/metrics', metricsEndpoint);
  app.use(cors(resources, config.CORS_ALLOWED_ORIGINS));
  const checks = new SharedChecks(resources, clients.identity, { keys: serviceKeys, usage });
  app.get('/api/v1/openapi.json', openApiEndpoint(ROUTES));
  // The entitlement tokens' public keys, at the well-known path and under the API (docs/adr/0247).
  const keySet = keySetEndpoint(new KeySetCache(clients.entitlements, logger));
  app.get(['/.well-known/jwks.json', '/api/v1/.well-known/jwks.json'], keySet);
  // Each route reads its own body (an upload only after its checks, ADR 0080); a request no
  // route serves is still held to BODY_LIMIT before its 404.
  app.use(
    '/api/v1',
    buildApiRouter(
      ROUTES,
      checks,
      clients,
      { body: config.BODY_LIMIT, uploadFileBytes: config.PHOTO_MAX_BYTES },
      { memberMayHaveWritten: (userId) => authentication?.forgetUser(userId) },
    ),
  );
  app.use(bodyDecoder(config.BODY_LIMIT));
  app.use(routeNotFound);
  app.use(errorRenderer(logger));

  const release = async () => {
    await usage.stop();
    void nats.then((connection) => connection.close()).catch(() => undefined);
    clients.close();
  };
  const server = createServer(app);
  try {
    await listenOn(server, config.PORT, config.HOST);
  } catch (error) {
    // A port another process holds: fail the start, never run a gateway that serves nothing.
    await release();
    throw error;
  }
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info({ port, host: config.HOST }, 'gateway listening');

  return {
    port,
    async stop() {
      draining = true;
      if (config.SHUTDOWN_DELAY_MS > 0) await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_DELAY_MS));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 5000).unref();
      });
      await release();
    },
  };
}
