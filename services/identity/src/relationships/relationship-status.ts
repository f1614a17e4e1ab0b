import { RelationshipStatus } from '@masthead/proto/identity';
import type { RelationshipRecord } from './relationship.schema.js';

export const RELATIONSHIP_STATES = {
  active: RelationshipStatus.RELATIONSHIP_STATUS_ACTIVE,
  locked: RelationshipStatus.RELATIONSHIP_STATUS_LOCKED,
  suspended: RelationshipStatus.RELATIONSHIP_STATUS_SUSPENDED,
  removed: RelationshipStatus.RELATIONSHIP_STATUS_REMOVED,
} as const;

/** A relationship's state on the wire; NONE when the user has no relationship with the resource. */
export const toRelationshipStatus = (relationship: RelationshipRecord | null): RelationshipStatus =>
  relationship ? RELATIONSHIP_STATES[relationship.status] : RelationshipStatus.RELATIONSHIP_STATUS_NONE;

/** The member belongs to the resource: a removed relationship is a tombstone of one who left. */
export const isMemberRelationship = (relationship: RelationshipRecord | null): relationship is RelationshipRecord =>
  relationship !== null && relationship.status !== 'removed';

/**
 * The one definition of the relationship states that may not start a session, whatever the way
 * in (password, social or recovered sign-in). A removed relationship is not among them: signing
 * in again rejoins the resource (ADR 0071). The gateway's access check holds its own set over the
 * wire enum, which also refuses removed members on member routes (ADR 0096).
 */
const SIGN_IN_BLOCKED: ReadonlySet<RelationshipRecord['status']> = new Set(['locked', 'suspended']);

export const isSignInBlocked = (relationship: RelationshipRecord | null): boolean =>
  relationship !== null && SIGN_IN_BLOCKED.has(relationship.status);
