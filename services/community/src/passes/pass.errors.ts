import { defineError } from '@masthead/core/errors';

/** The pass is not one the caller owns in the resource (or does not exist). */
export const passNotFound = defineError({ status: 404, code: 'ti_event_pass_not_found', description: 'Pass not found' });
/** PUT /user/pass/{id}/assign: `assign_id` is not a member of the resource. */
export const invalidAssignId = defineError({
  status: 409,
  code: 'invalid_assign_id',
  description: 'assign_id must be a member of the resource',
});
/** The pass has an attendee or a pending invitation already. */
export const passAlreadyAssigned = defineError({
  status: 409,
  code: 'ti_event_pass_assigned',
  description: 'The pass is assigned or invited already',
});
/** DELETE /user/pass/{id}/invite: the pass has no invitation or assignment. */
export const passInviteNotFound = defineError({
  status: 404,
  code: 'ti_event_pass_invite_not_found',
  description: 'Pass invitation not found',
});
/** DELETE /user/pass/{id}/invite: the ticket's unassign limit is used up (or 0). */
export const passUnassignLimit = defineError({
  status: 409,
  code: 'ti_event_pass_unassign_limit',
  description: 'The pass cannot be unassigned again',
});
/** PUT /user/pass/{id}/extra: `extra` is not a JSON object of at most 16 KiB. */
export const invalidExtra = defineError({
  status: 409,
  code: 'invalid_extra',
  description: 'extra must be a JSON object of at most 16 KiB',
});
/** POST /ti-event/pass/invite-validation: no pending invitation has the code in the resource. */
export const invalidPassInvitePreview = defineError({ status: 409, code: 'invalid_invite', description: 'Invalid pass invitation' });
/** POST /ti-event/pass/invite-activation: unknown, used, or for another email. */
export const invalidPassInvite = defineError({ status: 422, code: 'invalid_invite', description: 'Invalid pass invitation' });
/** RedeemPassToken: unknown, expired, of another resource, or its assignment ended. */
export const passTokenRefused = defineError({
  status: 401,
  code: 'authorization_fail',
  description: 'The pass authorization token is not valid',
});
