import type { Resource } from '@masthead/proto/accounts';
import { ServiceKeyState } from '@masthead/proto/accounts/service_accounts';
import { RelationshipStatus, SessionState } from '@masthead/proto/identity';
import type { Request } from 'express';
import type { ServiceClients } from '../clients.js';
import { accessDenied, authAccessFail, authFailed, resourceNotExists, tokenCompromised, tokenExpired } from '@masthead/core/errors';
import { GUEST, type Caller, type RequestContext } from './context.js';
import type { ResourceDirectory } from '@masthead/core/resources';
import { isAllowed, toRole, type RouteAccess } from './roles.js';
import type { ServiceAccountUsage } from './service-account-usage.js';
import type { ServiceKeyResolver } from './service-key-resolver.js';

/** How a route uses the `resource` header. */
export type ResourceMode = 'required' | 'optional' | 'ignored';

export interface RoutePolicy {
  access: RouteAccess;
  resource: ResourceMode;
  /** Member context: active user, valid resource, relationship neither locked nor suspended. */
  member: boolean;
  /** False only where the spec excludes a route from session expiry/revocation checks. */
  sessionChecks: boolean;
  /**
   * The route reads `service-api-key` (document 2, section I); elsewhere the header is ignored
   * like any unknown header (ADR 0020).
   */
  serviceKey?: boolean;
}

/** Service-account key resolution and usage recording, for routes that read the key. */
export interface ServiceKeyChecks {
  keys: ServiceKeyResolver;
  usage: ServiceAccountUsage;
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

/**
 * The shared checks of document 1 (Authentication rule 2), in order: resource resolution,
 * session state, role ACL, member context. One identity call at most; the resource comes from
 * the resolver's cache.
 */
export class SharedChecks {
  constructor(
    private readonly resources: ResourceDirectory,
    private readonly identity: ServiceClients['identity'],
    private readonly serviceKeys?: ServiceKeyChecks,
  ) {}

  /** `action` is the route's `METHOD /path`, the name service-account grants use. */
  async run(req: Request, policy: RoutePolicy, action = ''): Promise<RequestContext> {
    const resourceKey = policy.resource === 'ignored' ? '' : header(req, 'resource');
    const resource = resourceKey ? await this.resources.resolve(resourceKey) : null;
    if (resourceKey && !resource) throw resourceNotExists();
    if (policy.resource === 'required' && !resource) throw resourceNotExists();

    const token = header(req, 'token');
    const serviceKey = policy.serviceKey && resource ? header(req, 'service-api-key') : '';
    // The key is tried before the token; an invalid key falls back to ordinary resolution.
    const keyCaller = serviceKey && resource ? await this.authenticateServiceKey(serviceKey, resource, action) : null;
    const caller = keyCaller ?? (token ? await this.authenticate(token, resource?.id ?? 0, policy) : GUEST);
    if (!isAllowed(caller.role, policy.access)) {
      if (caller.role === 'guest') throw authFailed();
      throw accessDenied();
    }
    if (policy.member && caller.user && !caller.user.active) throw authAccessFail();

    return {
      requestId: req.requestId,
      resource,
      caller,
      headers: { token, session: header(req, 'session'), sourceType: header(req, 'source-type'), idpToken: header(req, 'idp-token') },
      ip: req.ip ?? '',
      userAgent: header(req, 'user-agent'),
    };
  }

  /**
   * A `service-api-key` (document 2, section I). Null (fall back to the token, or guest) for an
   * unknown or revoked key and for a key of another resource. A suspended account, or one whose
   * user is missing, inactive, not a service-account user or locked out of the resource, is
   * 401 auth_access_fail; an action the account is not granted is 403 access.
   */
  private async authenticateServiceKey(key: string, resource: Resource, action: string): Promise<Caller | null> {
    if (!this.serviceKeys) return null;
    const resolution = await this.serviceKeys.keys.resolve(key);
    const account = resolution.account;
    if (!account || account.resourceId !== resource.id) return null;
    if (resolution.state === ServiceKeyState.SERVICE_KEY_STATE_SUSPENDED) throw authAccessFail();
    if (resolution.state !== ServiceKeyState.SERVICE_KEY_STATE_ACTIVE) return null;
    const user = resolution.user;
    if (!user || !user.active || resolution.userRole !== 'service_account' || BLOCKED_RELATIONSHIPS.has(resolution.relationship)) {
      throw authAccessFail();
    }
    // The key was used, whether or not this action is granted.
    this.serviceKeys.usage.record(account.id);
    if (!account.fullAccess && !account.grants.includes(action)) throw accessDenied();
    return { role: 'service_account', user, sessionId: 0, serviceAccountId: account.id };
  }

  private async authenticate(token: string, resourceId: number, policy: RoutePolicy): Promise<Caller> {
    const auth = await this.identity.authenticate({ token, resourceId }, { idempotent: true });
    if (!auth.user || auth.state === SessionState.SESSION_STATE_UNKNOWN) return GUEST;
    if (policy.sessionChecks) {
      if (auth.state === SessionState.SESSION_STATE_EXPIRED) throw tokenExpired();
      if (auth.state === SessionState.SESSION_STATE_COMPROMISED) throw tokenCompromised();
    }
    if (policy.member && BLOCKED_RELATIONSHIPS.has(auth.relationship)) throw authAccessFail();
    return { role: toRole(auth.role), user: auth.user, sessionId: auth.sessionId };
  }
}
