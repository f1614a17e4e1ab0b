import type { Metadata } from '@grpc/grpc-js';

/** Metadata key that carries the HTTP request ID (`req_guid`) across every hop. */
export const REQUEST_ID_KEY = 'x-request-id';

/** What a handler knows about the call besides its request message. */
export interface CallContext {
  requestId: string;
  /** Absolute deadline of the incoming call, forwarded to outgoing calls. */
  deadline: Date | undefined;
}

export function readRequestId(metadata: Metadata): string {
  const value = metadata.get(REQUEST_ID_KEY)[0];
  return typeof value === 'string' && value.length > 0 ? value : 'internal';
}
