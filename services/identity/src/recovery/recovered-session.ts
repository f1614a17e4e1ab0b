import type { Resource } from '@masthead/proto/accounts';
import type { EntitlementTokens } from '../entitlements/entitlement-tokens.js';
import type { SignInResponse } from '@masthead/proto/identity';
import { isMemberRelationship, isSignInBlocked } from '../relationships/relationship-status.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { RelationshipRecord } from '../relationships/relationship.schema.js';
import { toSessionResult } from '../signin/session-result.js';
import type { SessionContext, SessionStarter } from '../signin/session-starter.js';
import { authorizationFail } from '../signin/sign-in.errors.js';
import type { ProfileService } from '../users/profile.service.js';
import type { UserView } from '../users/user.repository.js';

const TOKEN_DELIVERY = { responseType: 'token', redirectUri: null } as const;

interface RecoveredSessionDeps {
  relationships: RelationshipRepository;
  starter: SessionStarter;
  profiles: ProfileService;
  entitlements: EntitlementTokens;
}

/** Signs a member in after a reset code or an external login token, with sign-in's rules. */
export class RecoveredSession {
  constructor(private readonly deps: RecoveredSessionDeps) {}

  /** Throws 401 authorization_fail, like sign-in, for an inactive account or a blocked relationship. */
  async assertMaySignIn(user: UserView, resourceId: number): Promise<RelationshipRecord | null> {
    const relationship = await this.deps.relationships.find(resourceId, user._id);
    if (!user.active || isSignInBlocked(relationship)) throw authorizationFail();
    return relationship;
  }

  /** Joins the resource where needed (default membership) and returns the session result. */
  async start(
    user: UserView,
    resource: Resource,
    relationship: RelationshipRecord | null,
    context: SessionContext,
  ): Promise<SignInResponse> {
    // A removed relationship (the member left, docs/adr/0071) rejoins like a new one.
    if (!isMemberRelationship(relationship)) await this.deps.starter.join(resource, user._id);
    const started = await this.deps.starter.start(user._id, resource, TOKEN_DELIVERY, context, 'user_login');
    return toSessionResult({ user, ...started }, this.deps);
  }
}
