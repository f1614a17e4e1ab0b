import type { SessionContext } from '../signin/session-starter.js';

/** The client fields every session-issuing request carries ('' or absent when unknown). */
export interface SessionClientFields {
  guestSession?: string;
  sourceType?: string;
  ip?: string;
  userAgent?: string;
}

const orNull = (value: string | undefined) => value || null;

/** Request metadata a session records, from a request's client fields. */
export const sessionContextOf = (client: SessionClientFields | undefined, requestId: string): SessionContext => ({
  requestId,
  guestSession: orNull(client?.guestSession),
  sourceType: orNull(client?.sourceType),
  ip: orNull(client?.ip),
  userAgent: orNull(client?.userAgent),
});
