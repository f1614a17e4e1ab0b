import { AsyncLocalStorage } from 'node:async_hooks';
import type { CallContext } from './context.js';

/**
 * The call being served, ambient for everything it awaits: the gRPC server enters it for each
 * incoming call (`adaptUnary`) and the gateway for each HTTP request. Outgoing calls read it, so
 * a caller's deadline bounds the whole call tree and its request ID reaches every hop and every
 * log line, without each call site passing them on (ADR 0100).
 */
const scope = new AsyncLocalStorage<CallContext>();

/** Runs `work` with `context` as the ambient call; whatever `work` awaits sees it too. */
export function runInCall<T>(context: CallContext, work: () => T): T {
  return scope.run(context, work);
}

/** The ambient call, or undefined outside one (startup, timers set up outside a call, NATS handlers). */
export function currentCall(): CallContext | undefined {
  return scope.getStore();
}

/** The earlier of two deadlines; either may be absent. */
export function earliest(a: Date | undefined, b: Date | undefined): Date | undefined {
  if (!a) return b;
  if (!b) return a;
  return a.getTime() <= b.getTime() ? a : b;
}
