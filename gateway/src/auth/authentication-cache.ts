import { TtlCache } from '@masthead/core/cache';
import { onEvent, type NatsLink } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { AuthenticateResponse } from '@masthead/proto/identity';
import type { ServiceClients } from '../clients.js';

type IdentityClient = ServiceClients['identity'];

/** The event identity publishes when a member's sessions, state or projection change. */
export const MEMBER_ACCESS_CHANGED = 'member_access_changed';

/**
 * Identity's Authenticate answers by token and resource, for a short time (ADR 0042): a member
 * read then costs one gRPC call instead of two. Identity announces every change of a member's
 * access (`member_access_changed`), which drops that member's entries at once; the lifetime
 * bounds what a lost announcement could leave stale.
 */
export class AuthenticationCache {
  private readonly cache: TtlCache<string, AuthenticateResponse>;

  constructor(ttlMs: number) {
    this.cache = new TtlCache(ttlMs, 50_000);
  }

  listen(nats: NatsLink, logger: Logger): void {
    onEvent(nats, MEMBER_ACCESS_CHANGED, logger, (event) => {
      const { user_id: userId, session_id: sessionId } = event.payload;
      if (sessionId !== null && sessionId > 0) this.forgetSession(sessionId);
      else this.forgetUser(userId);
    });
  }

  authenticate(token: string, resourceId: number, load: () => Promise<AuthenticateResponse>): Promise<AuthenticateResponse> {
    return this.cache.getOrLoad(`${resourceId}:${token}`, load);
  }

  forgetUser(userId: number): void {
    this.cache.deleteWhere((answer) => answer.user?.id === userId);
  }

  forgetSession(sessionId: number): void {
    this.cache.deleteWhere((answer) => answer.sessionId === sessionId);
  }
}

/**
 * The identity client with Authenticate served from the cache; a logout through this gateway
 * drops its session at once, before the announcement arrives.
 */
export function withAuthenticationCache(identity: IdentityClient, cache: AuthenticationCache): IdentityClient {
  return {
    ...identity,
    authenticate: (request, options) =>
      cache.authenticate(request.token, request.resourceId, () => identity.authenticate(request, options)),
    logout: async (request, options) => {
      const answer = await identity.logout(request, options);
      cache.forgetSession(request.sessionId);
      return answer;
    },
  };
}
