import { httpError } from '@masthead/core/errors';

/** An invite ID that is not one of the team's invites. */
export const inviteNotFound = () => httpError(404, 'invite_not_found', 'Invite not found');
/** POST /user/teams/{team_id}/invites: the save or the event failed (document 2 C: 409 exception). */
export const inviteException = () => httpError(409, 'exception', 'The invite could not be saved');
/** POST /invite-validation: no valid invite for the code in the resource. */
export const invalidInvitePreview = () => httpError(409, 'invalid_invite', 'Invalid invite');
/** POST /invite-validation: over 50 previews per action, resource and address. */
export const requestsLimitExceeded = () => httpError(406, 'requests_limit_exceeded', 'Requests limit exceeded');
/** POST /invite-activation: unknown, outside its window, capped, for another email, or used. */
export const invalidInvite = () => httpError(422, 'invalid_invite', 'Invalid invite');
/** POST /invite-activation: the team is gone, inactive, full or outside its domains. */
export const teamInvitationFail = () => httpError(406, 'team_invitation_fail', 'Team invitation failed');
/** POST /invite-activation: the invite's Pricing is not an active Pricing of the resource. */
export const incorrectSubscription = () => httpError(406, 'incorrect_subscription', 'Incorrect subscription');
/** POST /invite-activation: the paid team Pricing has no payment customer on the owner. */
export const teamPaymentFail = () => httpError(406, 'team_payment_fail', 'Team payment failed');
/** POST /invite-activation: the membership could not be granted. */
export const acceptInviteFail = () => httpError(406, 'accept_invite_fail', 'Invite could not be accepted');
