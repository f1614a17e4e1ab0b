import { defineError } from '@masthead/core/errors';

/** An invite ID that is not one of the team's invites. */
export const inviteNotFound = defineError({ status: 404, code: 'invite_not_found', description: 'Invite not found' });
/** POST /user/teams/{team_id}/invites: the save or the event failed (document 2 C: 409 exception). */
export const inviteException = defineError({ status: 409, code: 'exception', description: 'The invite could not be saved' });
/** POST /invite-validation: no valid invite for the code in the resource. */
export const invalidInvitePreview = defineError({ status: 409, code: 'invalid_invite', description: 'Invalid invite' });
/** POST /invite-validation: over 50 previews per action, resource and address. */
export const requestsLimitExceeded = defineError({ status: 406, code: 'requests_limit_exceeded', description: 'Requests limit exceeded' });
/** POST /invite-activation: unknown, outside its window, capped, for another email, or used. */
export const invalidInvite = defineError({ status: 422, code: 'invalid_invite', description: 'Invalid invite' });
/** POST /invite-activation: the team is gone, inactive, full or outside its domains. */
export const teamInvitationFail = defineError({ status: 406, code: 'team_invitation_fail', description: 'Team invitation failed' });
/** POST /invite-activation: the invite's Pricing is not an active Pricing of the resource. */
export const incorrectSubscription = defineError({ status: 406, code: 'incorrect_subscription', description: 'Incorrect subscription' });
/** POST /invite-activation: the paid team Pricing has no payment customer on the owner. */
export const teamPaymentFail = defineError({ status: 406, code: 'team_payment_fail', description: 'Team payment failed' });
/** POST /invite-activation: the membership could not be granted. */
export const acceptInviteFail = defineError({ status: 406, code: 'accept_invite_fail', description: 'Invite could not be accepted' });
/** POST /invite-validation: the final lookup finds nothing (the invite's team or Pricing is gone). */
export const incorrectInvite = defineError({ status: 406, code: 'incorrect_invite', description: 'Incorrect invite' });
