import type { Connection, Model } from 'mongoose';
import {
  relationshipKey,
  relationshipModel,
  type RelationshipRecord,
  type RelationshipState,
} from '../relationships/relationship.schema.js';
import type { MemberChangeListener } from '../users/profile-cache.js';

/** What leaving a resource clears from the relationship: its resource-scoped data. */
const REMOVED_DATA = { password_hash: null, extra: {}, role: 'user' } as const;

/**
 * Conditional moves of a relationship between states. Each is one update guarded by the state it
 * leaves, so two concurrent changes cannot both win (on FerretDB the guard is read-then-write,
 * DESIGN.md: the loser of a near-simultaneous race may also succeed; both then wrote the same
 * target state).
 */
export class RelationshipTransitions {
  private readonly model: Model<RelationshipRecord>;

  constructor(
    db: Connection,
    /** Told of every move, after it (the profile cache, ADR 0191). */
    private readonly changes: MemberChangeListener,
  ) {
    this.model = relationshipModel(db);
  }

  /** Moves the relationship from one of `from` to `to`; false when it was in none of them. */
  async move(resourceId: number, userId: number, from: readonly RelationshipState[], to: RelationshipState): Promise<boolean> {
    const changes = to === 'removed' ? { status: to, ...REMOVED_DATA } : { status: to };
    const result = await this.model
      .updateOne({ _id: relationshipKey(resourceId, userId), status: { $in: from } }, { $set: { ...changes, updated_at: new Date() } })
      .exec();
    this.changes.changed(userId);
    return result.modifiedCount === 1;
  }
}
