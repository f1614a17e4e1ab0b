import {
  Server,
  ServerCredentials,
  status as GrpcStatus,
  type ServerUnaryCall,
  type sendUnaryData,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { observeRpc } from '../metrics/index.js';
import type { Logger } from 'pino';
import { dependencyUnavailable, isDependencyFailure, ServiceError, toGrpcError } from '../errors/index.js';
import { runInCall } from './call-scope.js';
import { readRequestId, type CallContext } from './context.js';

type AnyDefinition = ServiceDefinition<UntypedServiceImplementation>;

/** Request and response types of a ts-proto grpc-js service definition, method by method. */
type MethodTypes<M> = M extends {
  requestDeserialize: (bytes: Buffer) => infer Req;
  responseSerialize: (value: infer Res) => Buffer;
}
  ? { req: Req; res: Res }
  : never;

/** An implementation written as async functions; the adapter does the callback plumbing. */
export type AsyncImplementation<Def> = {
  [K in keyof Def]: (request: MethodTypes<Def[K]>['req'], context: CallContext) => Promise<MethodTypes<Def[K]>['res']>;
};

export interface ServiceRegistration<Def> {
  /** Fully qualified name for the health service, e.g. `masthead.accounts.v1.AccountsService`. */
  name: string;
  definition: Def;
  implementation: AsyncImplementation<Def>;
}

export interface GrpcServerOptions {
  listen: string;
  logger: Logger;
  // Registrations of different definitions; each is checked where it is built.
  services: ServiceRegistration<any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface RunningGrpcServer {
  port: number;
  /** Stops accepting calls, lets running calls finish for up to `graceMs`, then cancels them. */
  stop(graceMs?: number): Promise<void>;
}

/** Answers built by `answerCache`: encoded once, on first use, then reused (they never change). */
const reusableAnswers = new WeakSet<object>();
const encodedAnswers = new WeakMap<object, Buffer>();

/**
 * `build` memoised per source object: for a handler that serves a cached value (the same object
 * on every cache hit), so that a hit pays neither the mapping to the wire message nor its
 * protobuf encoding again (ADR 0196). The answer is shared between calls: nothing may change it.
 */
export function answerCache<S extends object, T extends object>(build: (source: S) => T): (source: S) => T {
  const answers = new WeakMap<S, T>();
  return (source) => {
    let answer = answers.get(source);
    if (!answer) {
      answer = build(source);
      answers.set(source, answer);
      reusableAnswers.add(answer);
    }
    return answer;
  };
}

/** A method's response encoder that encodes a reusable answer only once. */
function reusingEncoder(serialize: (value: unknown) => Buffer): (value: unknown) => Buffer {
  return (value) => {
    if (value === null || typeof value !== 'object' || !reusableAnswers.has(value)) return serialize(value);
    let bytes = encodedAnswers.get(value);
    if (!bytes) {
      bytes = serialize(value);
      encodedAnswers.set(value, bytes);
    }
    return bytes;
  };
}

/**
 * Adapts one async handler to grpc-js: exactly one callback per call, ServiceErrors carried as
 * status plus metadata, anything else logged with the request ID and sent as an opaque INTERNAL.
 * The handler runs inside the call's scope, so its own outgoing calls inherit the request ID and
 * what is left of the caller's deadline.
 */
function adaptUnary(method: string, handler: (request: unknown, context: CallContext) => Promise<unknown>, logger: Logger) {
  return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>): void => {
    const requestId = readRequestId(call.metadata);
    const deadline = call.getDeadline();
    // grpc-js reports "no deadline" as Infinity; a finite number is epoch milliseconds.
    const context: CallContext = {
      requestId,
      deadline: deadline instanceof Date ? deadline : Number.isFinite(deadline) ? new Date(deadline) : undefined,
    };
    const started = process.hrtime.bigint();
    const observe = (code: GrpcStatus): void =>
      observeRpc('server', method, GrpcStatus[code], Number(process.hrtime.bigint() - started) / 1e9);
    runInCall(context, () => handler(call.request, context)).then(
      (response) => {
        observe(GrpcStatus.OK);
        callback(null, response);
      },
      (error: unknown) => {
        // An unreachable database answers 503 at once, not an opaque 500 (docs/adr/0181).
        if (isDependencyFailure(error)) logger.warn({ err: error, method, req_guid: requestId }, 'dependency unavailable');
        else if (!(error instanceof ServiceError) || error.status >= 500) {
          logger.error({ err: error, method, req_guid: requestId }, 'gRPC handler failed');
        }
        const sent = toGrpcError(isDependencyFailure(error) ? dependencyUnavailable() : error);
        observe(sent.code ?? GrpcStatus.INTERNAL);
        callback(sent);
      },
    );
  };
}

export async function startGrpcServer({ listen, logger, services }: GrpcServerOptions): Promise<RunningGrpcServer> {
  // SO_REUSEPORT is on by default in grpc-js: a second server on a taken port would share it
  // silently instead of failing, and calls would reach the wrong process.
  const server = new Server({ 'grpc.max_receive_message_length': 16 * 1024 * 1024, 'grpc.so_reuseport': 0 });
  const health = new HealthImplementation({ '': 'SERVING' });
  health.addToServer(server);
  for (const { name, definition, implementation } of services) {
    const adapted: UntypedServiceImplementation = {};
    for (const method of Object.keys(definition as AnyDefinition)) {
      const handler = (implementation as Record<string, (r: unknown, c: CallContext) => Promise<unknown>>)[method];
      if (!handler) throw new Error(`${name}: no handler for ${method}`);
      adapted[method] = adaptUnary(`${name}/${method}`, handler, logger);
    }
    // grpc-js copies the encoded answer into each response frame, so one encoding serves many calls.
    const reusing = Object.fromEntries(
      Object.entries(definition as AnyDefinition).map(([method, shape]) => [
        method,
        { ...shape, responseSerialize: reusingEncoder(shape.responseSerialize as (value: unknown) => Buffer) },
      ]),
    ) as AnyDefinition;
    // grpc-js refuses a service without methods; a contract that has none yet still reports health.
    if (Object.keys(adapted).length > 0) server.addService(reusing, adapted);
    health.setStatus(name, 'SERVING');
  }
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(listen, ServerCredentials.createInsecure(), (error, boundPort) => (error ? reject(error) : resolve(boundPort)));
  });
  return {
    port,
    stop: (graceMs = 5000) =>
      new Promise<void>((resolve) => {
        // Readiness goes first: health checks (the gateway's /readyz, kubelet) see it at once,
        // and the GOAWAY of tryShutdown moves clients to another replica, or makes them wait for
        // this one's successor (docs/adr/0182); calls under way finish.
        for (const name of ['', ...services.map((service) => service.name)]) health.setStatus(name, 'NOT_SERVING');
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
