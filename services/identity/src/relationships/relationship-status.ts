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
