/** A measured endpoint of the public API (`verify`: an edge's verification, not an API call). */
export type EndpointId = 'plans' | 'plan' | 'user' | 'signin' | 'refresh' | 'event' | 'jwks' | 'verify' | 'token';
/** A baseline measured in the same run. */
export type BaselineId = 'bare-json' | 'one-hop' | 'hash' | 'refresh-bare';

/**
 * A minimum ratio to what is measured beside the endpoint in each round (a baseline or another
 * endpoint), a minimum absolute throughput, or at most `max` more CPU milliseconds per answer in
 * `processes` than the baseline measured beside it.
 */
export type Target =
  | { kind: 'ratio'; baseline: BaselineId | EndpointId; min: number }
  | { kind: 'absolute'; min: number }
  | { kind: 'cpu-delta'; baseline: BaselineId; processes: readonly string[]; max: number };

export interface EndpointSpec {
  id: EndpointId;
  label: string;
  target: Target;
  /** Closed-loop connections: enough to saturate the stack on two cores (0: not an HTTP load). */
  connections: number;
}

/** Endpoints whose load runs inside a process of the bench, not over HTTP: no latency run, no profile. */
export const IN_PROCESS: ReadonlySet<EndpointId> = new Set(['verify']);

// The targets of issues 4, 14 and 30. Sign-in keeps fewer connections than identity's hash queue
// holds (HASH_CONCURRENCY 4 + HASH_QUEUE_LIMIT 64), so a closed loop never fills it.
export const ENDPOINTS: readonly EndpointSpec[] = [
  { id: 'plans', label: 'GET /plans', target: { kind: 'ratio', baseline: 'one-hop', min: 0.8 }, connections: 32 },
  { id: 'plan', label: 'GET /plans/{id}', target: { kind: 'ratio', baseline: 'one-hop', min: 0.8 }, connections: 32 },
  { id: 'user', label: 'GET /user', target: { kind: 'ratio', baseline: 'one-hop', min: 0.5 }, connections: 32 },
  { id: 'signin', label: 'POST /authorization', target: { kind: 'ratio', baseline: 'hash', min: 0.85 }, connections: 16 },
  // About 250/s on two cores (issue 14; Keycloak manages ~120/s per vCPU).
  { id: 'refresh', label: 'POST /authorization/refresh', target: { kind: 'ratio', baseline: 'one-hop', min: 0.15 }, connections: 32 },
  // Every page load of an embedded client sends one (document 2 L): a guest write that waits for
  // JetStream's acknowledgement (docs/adr/0172). Issue 14 holds it to 0.8 × one-hop.
  { id: 'event', label: 'POST /user/event', target: { kind: 'ratio', baseline: 'one-hop', min: 0.8 }, connections: 32 },
  // Issue 30: what an edge fetches for its paywall (docs/adr/0247), held to 0.8 × one-hop ...
  { id: 'jwks', label: 'GET /.well-known/jwks.json', target: { kind: 'ratio', baseline: 'one-hop', min: 0.8 }, connections: 32 },
  // ... an edge's check of an entitlement token with a warm key set, one process on the same
  // cores, at least 5 × GET /user (the call it replaces) ...
  { id: 'verify', label: 'entitlement token verification', target: { kind: 'ratio', baseline: 'user', min: 5 }, connections: 0 },
  // ... and the token added to a session answer: a refresh of a session with a resource (which
  // carries one) against a refresh of a session without (which does not), CPU of identity and
  // the gateway per answer, at most 0.2 ms more. Sign-in adds the same work, less the view read
  // it makes for its own subscriptions.
  {
    id: 'token',
    label: 'entitlement token in a refresh',
    target: { kind: 'cpu-delta', baseline: 'refresh-bare', processes: ['identity', 'gateway'], max: 0.2 },
    connections: 32,
  },
];

export const BASELINES: readonly { id: BaselineId; label: string; connections: number }[] = [
  { id: 'bare-json', label: 'bare express, same JSON as GET /plans', connections: 32 },
  { id: 'one-hop', label: 'bare express + one raw grpc-js call', connections: 32 },
  { id: 'hash', label: 'argon2id hash only (4 at once)', connections: 0 },
  { id: 'refresh-bare', label: 'POST /authorization/refresh of a session without a resource (no entitlement token)', connections: 32 },
];
