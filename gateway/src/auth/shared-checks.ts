import { httpError } from '@masthead/core/errors';
import { RelationshipStatus, SessionState } from '@masthead/proto/identity';
import type { Request } from 'express';
import type { ServiceClients } from '../clients.js';
import { GUEST, type Caller, type RequestContext } from './context.js';
import type { ResourceResolver } from './resource-resolver.js';
import { isAllowed, toRole, type RouteAccess } from './roles.js';

/** How a route uses the `resource` header. */
export type ResourceMode = 'required' | 'optional' | 'ignored';

export interface RoutePolicy {
  access: RouteAccess;
  resource: ResourceMode;
  /** Member context: active user, valid resource, relationship neither locked nor suspended. */
  member: boolean;
  /** False only where the spec excludes a route from session expiry/revocation checks. */
  sessionChecks: boolean;
}

const header = (req: Request, name: string): string => {
  const value = req.headers[name];
  return typeof value === 'string' ? value.trim() : '';
};

const BLOCKED_RELATIONSHIPS = new Set([
  RelationshipStatus.RELATIONSHIP_STATUS_LOCKED,
  RelationshipStatus.RELATIONSHIP_STATUS_SUSPENDED,
  RelationshipStatus.RELATIONSHIP_STATUS_REMOVED,
]);

const resourceNotExists = () => httpError(404, 'resource_not_exists', 'Resource does not exist');

/**
 * The shared checks of document 1 (Authentication rule 2), in order: resource resolution,
 * session state, role ACL, member context. One identity call at most; the resource comes from
 * the resolver's cache.
 */
export class SharedChecks {
  constructor(
    private readonly resources: ResourceResolver,
    private readonly identity: ServiceClients['identity'],
  ) {}

  async run(req: Request, policy: RoutePolicy): Promise<RequestContext> {
    const requestId = req.requestId;
    const resourceKey = policy.resource === 'ignored' ? '' : header(req, 'resource');
    const resource = resourceKey ? await this.resources.resolve(resourceKey, requestId) : null;
    if (resourceKey && !resource) throw resourceNotExists();
    if (policy.resource === 'required' && !resource) throw resourceNotExists();

    const token = header(req, 'token');
    const caller = token ? await this.authenticate(token, resource?.id ?? 0, policy, requestId) : GUEST;
    if (!isAllowed(caller.role, policy.access)) {
      if (caller.role === 'guest') throw httpError(401, 'auth_failed', 'Authentication required');
      throw httpError(403, 'access', 'Access denied');
    }
    if (policy.member && caller.user && !caller.user.active) throw accessFail();

    return {
      requestId,
      resource,
      caller,
      headers: { token, session: header(req, 'session'), sourceType: header(req, 'source-type'), idpToken: header(req, 'idp-token') },
      ip: req.ip ?? '',
      userAgent: header(req, 'user-agent'),
    };
  }

  private async authenticate(token: string, resourceId: number, policy: RoutePolicy, requestId: string): Promise<Caller> {
    const auth = await this.identity.authenticate({ token, resourceId }, { requestId, idempotent: true });
    if (!auth.user || auth.state === SessionState.SESSION_STATE_UNKNOWN) return GUEST;
    if (policy.sessionChecks) {
      if (auth.state === SessionState.SESSION_STATE_EXPIRED) throw httpError(401, 'token_expired', 'Session token has expired');
      if (auth.state === SessionState.SESSION_STATE_COMPROMISED) throw httpError(401, 'token_compromised', 'Session token is compromised');
    }
    if (policy.member && BLOCKED_RELATIONSHIPS.has(auth.relationship)) throw accessFail();
    return { role: toRole(auth.role), user: auth.user, sessionId: auth.sessionId };
  }
}

const accessFail = () => httpError(401, 'auth_access_fail', 'Account is inactive or its access to this resource is locked');
