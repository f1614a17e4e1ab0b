import type { ClientOf } from '@masthead/core/clients';
import { RelationshipStatus, type User } from '@masthead/proto/identity';
import type { ProviderScope } from '@masthead/proto/integrations/provider_scope';
import { userNotFound } from './member.errors.js';

/** A user as the provider operations judge it: global role, and relationship with the resource. */
export interface MemberView {
  user: User;
  globalRole: string;
  relationship: RelationshipStatus;
  /** Empty without a relationship. */
  resourceRole: string;
}

/** Roles that may name another user in the list manager (document 2 H listmgr target rule). */
const LISTMGR_ELEVATED = new Set(['readonly', 'manager', 'support', 'admin', 'partner', 'root']);
/** Global roles that may name another user in the email-list provider (document 2 H audience). */
const AUDIENCE_ELEVATED = new Set(['admin', 'root']);

/** A relationship that ties the user to the resource: a removed one is a tombstone (identity ADR 0071). */
export const isInResource = (member: MemberView): boolean =>
  member.relationship !== RelationshipStatus.RELATIONSHIP_STATUS_NONE &&
  member.relationship !== RelationshipStatus.RELATIONSHIP_STATUS_REMOVED &&
  member.relationship !== RelationshipStatus.RELATIONSHIP_STATUS_UNSPECIFIED;

/** The member the gateway resolved (always present on member routes; a missing one is nobody). */
export function currentUser(scope: ProviderScope): User {
  if (!scope.user) throw userNotFound();
  return scope.user;
}

/** The user an operation acts for; `elevated` when an eligible caller named it. */
export interface Target {
  user: User;
  elevated: boolean;
}

/**
 * Member lookups in identity (one call each; only the paths that name another user, and the CRM
 * membership check, make them) and the target-selection rules of document 2 H (docs/adr/0161).
 */
export class MemberDirectory {
  constructor(private readonly identity: ClientOf<'identity'>) {}

  /** The user with its roles in the resource; null when no user has the ID. */
  async find(userId: number, resourceId: number): Promise<MemberView | null> {
    if (userId <= 0) return null;
    const member = await this.identity.getMember({ userId, resourceId }, { idempotent: true });
    return member.user
      ? { user: member.user, globalRole: member.globalRole, relationship: member.relationship, resourceRole: member.resourceRole }
      : null;
  }

  /**
   * Audience: subscribe, subscriber-info and unsubscribe act for the current member unless a
   * caller whose global role is admin or root names a `user_id`; anyone else's is ignored.
   * NOT_FOUND user_not_found when an eligible caller names no user.
   */
  audienceTarget(scope: ProviderScope, userId: number | undefined): Promise<Target> {
    return this.select(scope, userId, (caller) => AUDIENCE_ELEVATED.has(caller.globalRole));
  }

  /**
   * List manager: a root caller may name a user; another caller with a relationship to the
   * resource when its relationship role is readonly, manager, support, admin, partner or root;
   * one without a relationship when its global role is one of those. The named user must exist
   * and, unless the caller is root, belong to the resource (see `select`).
   */
  listmgrTarget(scope: ProviderScope, userId: number | undefined): Promise<Target> {
    return this.select(scope, userId, (caller) => {
      if (caller.globalRole === 'root') return true;
      return LISTMGR_ELEVATED.has(isInResource(caller) ? caller.resourceRole : caller.globalRole);
    });
  }

  /**
   * The named user for an eligible caller. A role counts only in the resource it was granted for,
   * root's everywhere (docs/adr/0239): a user without a relationship with the resource is out of
   * a non-root caller's reach, and answered exactly as a user that does not exist (404
   * user_not_found), so that the answer tells nothing of other resources' members.
   */
  private async select(scope: ProviderScope, userId: number | undefined, eligible: (caller: MemberView) => boolean): Promise<Target> {
    const current = currentUser(scope);
    if (userId === undefined) return { user: current, elevated: false };
    const caller = await this.find(current.id, scope.resourceId);
    if (!caller || !eligible(caller)) return { user: current, elevated: false };
    const target = await this.find(userId, scope.resourceId);
    if (!target || (caller.globalRole !== 'root' && !isInResource(target))) throw userNotFound();
    return { user: target.user, elevated: true };
  }
}
