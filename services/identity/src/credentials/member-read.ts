import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { RelationshipRecord } from '../relationships/relationship.schema.js';
import type { UserRepository, UserView } from '../users/user.repository.js';

export interface MemberRead {
  user: UserView | null;
  /** Null when the user has none with the resource, or no resource was named (0). */
  relationship: RelationshipRecord | null;
}

/**
 * The user and its relationship with the resource, read side by side with one read of the
 * member's credentials that both share (docs/adr/0210): three queries, one round trip deep.
 * `recent`: the credentials may be as read moments ago, for the member path's session check and
 * profile read (docs/adr/0216).
 */
export async function readMember(
  repositories: { users: UserRepository; relationships: RelationshipRepository },
  userId: number,
  resourceId: number,
  options: { recent?: boolean } = {},
): Promise<MemberRead> {
  const credentials = repositories.users.credentialsOf(userId, options.recent);
  const [user, relationship] = await Promise.all([
    repositories.users.findById(userId, credentials),
    resourceId ? repositories.relationships.find(resourceId, userId, credentials) : null,
  ]);
  return { user, relationship };
}
