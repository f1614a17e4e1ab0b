import { defineError } from '@masthead/core/errors';

// A blocked account or relationship is `authAccessFail` and an unknown member `userNotExist`
// (@masthead/core/errors): the gateway's shared checks answer the same before the call.

/** Thrown when the user has no relationship (profile) with the resource (member access, provider sign-in). */
export const notResourceMember = defineError({
  status: 403,
  code: 'user_resource_not_exist',
  description: 'The user is not a member of this resource',
});

/** Thrown by the restore operation when the relationship is neither locked nor suspended. */
export const relationshipNotBlocked = defineError(
  { status: 409, code: 'relationship_not_blocked', description: "The member's relationship is <status>, not locked or suspended" },
  (status: string) => ({ description: `The member's relationship is ${status}, not locked or suspended` }),
);

/** Thrown by the restore operation when the relationship changed between its read and its update. */
export const relationshipChanged = defineError({
  status: 409,
  code: 'relationship_not_blocked',
  description: "The member's relationship changed meanwhile; read it again",
});
