import {
  Client,
  Metadata,
  credentials,
  status as GrpcStatus,
  type Interceptor,
  type ServiceError as GrpcServiceError,
} from '@grpc/grpc-js';
import { ERROR_METADATA_KEY, fromGrpcError } from '../errors/index.js';
import { observeRpc } from '../metrics/index.js';
import { currentCall, earliest } from './call-scope.js';
import { REQUEST_ID_KEY, type CallContext } from './context.js';

/**
 * Per-call options. Request ID and deadline come from the ambient call (`runInCall`) by default;
 * pass them only to override it, e.g. outside any call.
 */
export interface CallOptions {
  /** Defaults to the ambient call's request ID. */
  requestId?: string;
  /**
   * Absolute deadline; defaults to now + the client's default deadline. Either way it is cut to
   * the ambient call's deadline: a hop never outlives its caller.
   */
  deadline?: Date;
  /** Retry UNAVAILABLE with jittered backoff. Only for calls that are safe to repeat. */
  idempotent?: boolean;
  /**
   * The answer may be the very object an earlier call of the method got for the same bytes
   * (decoded once, ADR 0197): for reads whose answer the caller never changes, served by the
   * peer from its cache (the same bytes on every hit).
   */
  shared?: boolean;
}

type UnaryMethodShape<Req, Res> = {
  path: string;
  requestSerialize: (value: Req) => Buffer;
  responseDeserialize: (bytes: Buffer) => Res;
};

/** A ts-proto grpc-js service definition of unary methods. */
export type UnaryServiceDefinition = Record<string, UnaryMethodShape<never, unknown>>;

/** A promise-returning client derived from a ts-proto service definition. */
export type ServiceClient<Def> = {
  [K in keyof Def]: Def[K] extends UnaryMethodShape<infer Req, infer Res>
    ? (request: Req, options?: CallOptions | CallContext) => Promise<Res>
    : never;
} & { close(): void };

export interface ClientOptions {
  defaultDeadlineMs: number;
  interceptors?: Interceptor[];
}

const RETRY_ATTEMPTS = 3;
const RETRY_BASE_MS = 50;

/**
 * Every channel balances calls over the addresses its target resolves to (a headless Service's
 * pods, or a comma-separated list): a replica that stops draining is left for the others.
 */
export const CHANNEL_OPTIONS = {
  'grpc.keepalive_time_ms': 30_000,
  // A restarted peer is found again within a second: grpc-js's default back-off (1 s growing to
  // 120 s) left calls waiting past their deadline for a replica that had been up for seconds.
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1_000,
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
};

/**
 * The channel target of a service address: `host:port`, or `ip:port,ip:port,…` (replicas on
 * IPv4 literals, e.g. a local drill), which grpc-js reads as an `ipv4:` list.
 */
export function channelTarget(address: string): string {
  return address.includes(',') ? `ipv4:${address}` : address;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Distinct answers kept per method for `shared` calls (pages, filters and resources apart). */
const SHARED_ANSWERS = 64;

/**
 * A decoder that decodes each distinct answer once: byte-identical answers get the same object.
 * The oldest answer goes first once SHARED_ANSWERS are kept.
 */
function sharingDecoder(decode: (bytes: Buffer) => unknown): (bytes: Buffer) => unknown {
  const answers = new Map<string, unknown>();
  return (bytes) => {
    const key = bytes.toString('latin1');
    let answer = answers.get(key);
    if (answer === undefined) {
      answer = decode(bytes);
      if (answers.size >= SHARED_ANSWERS) answers.delete(answers.keys().next().value!);
      answers.set(key, answer);
    }
    return answer;
  };
}

/**
 * Builds a typed client over one shared channel. Every call carries a deadline and the request
 * ID, both inherited from the ambient call unless given; errors come back as the ServiceError the
 * peer raised.
 */
export function createServiceClient<Def extends UnaryServiceDefinition>(
  definition: Def,
  address: string,
  options: ClientOptions,
): ServiceClient<Def> {
  const channel = new Client(channelTarget(address), credentials.createInsecure(), {
    interceptors: options.interceptors ?? [],
    ...CHANNEL_OPTIONS,
  });

  const sharing = new Map<string, (bytes: Buffer) => unknown>();
  const sharedDecoderOf = (method: UnaryMethodShape<unknown, unknown>) => {
    let decoder = sharing.get(method.path);
    if (!decoder) sharing.set(method.path, (decoder = sharingDecoder(method.responseDeserialize)));
    return decoder;
  };

  const callOnce = (method: UnaryMethodShape<unknown, unknown>, request: unknown, metadata: Metadata, deadline: Date, shared: boolean) =>
    new Promise<unknown>((resolve, reject) => {
      channel.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        shared ? sharedDecoderOf(method) : method.responseDeserialize,
        request,
        metadata,
        { deadline },
        (error: GrpcServiceError | null, response?: unknown) => (error ? reject(error) : resolve(response)),
      );
    });

  const invoke = async (method: UnaryMethodShape<unknown, unknown>, request: unknown, callOptions: CallOptions = {}) => {
    const ambient = currentCall();
    // A peer that restarts or is not up yet is waited for (within the deadline) rather than
    // failed at once: nothing was sent, so this is safe for every call (docs/adr/0182).
    const metadata = new Metadata({ waitForReady: true });
    const requestId = callOptions.requestId ?? ambient?.requestId;
    if (requestId) metadata.set(REQUEST_ID_KEY, requestId);
    const own = callOptions.deadline ?? new Date(Date.now() + options.defaultDeadlineMs);
    const deadline = earliest(own, ambient?.deadline) ?? own;
    const attempts = callOptions.idempotent ? RETRY_ATTEMPTS : 1;
    for (let attempt = 1; ; attempt++) {
      const started = process.hrtime.bigint();
      const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
      try {
        const response = await callOnce(method, request, metadata, deadline, callOptions.shared === true);
        observeRpc('client', method.path, 'OK', seconds());
        return response;
      } catch (error) {
        const grpcError = error as GrpcServiceError;
        observeRpc('client', method.path, GrpcStatus[grpcError.code] ?? 'UNKNOWN', seconds());
        // Only a transport failure is worth another try: a peer that answered 503 itself (a
        // ServiceError in the metadata, e.g. its database is down) would answer it again.
        const answered = (grpcError.metadata?.get(ERROR_METADATA_KEY).length ?? 0) > 0;
        const retryable = grpcError.code === GrpcStatus.UNAVAILABLE && !answered && attempt < attempts;
        if (!retryable || Date.now() >= deadline.getTime()) throw fromGrpcError(grpcError);
        await sleep(RETRY_BASE_MS * 2 ** (attempt - 1) * (0.5 + Math.random()));
      }
    }
  };

  const client: Record<string, unknown> = { close: () => channel.close() };
  for (const [name, method] of Object.entries(definition)) {
    client[name] = (request: unknown, callOptions?: CallOptions) =>
      invoke(method as UnaryMethodShape<unknown, unknown>, request, callOptions);
  }
  return client as ServiceClient<Def>;
}
