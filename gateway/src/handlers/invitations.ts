import { isServiceError } from '@masthead/core/errors';
import type { Caller } from '@masthead/proto/community/teams';
import { z } from 'zod';
import type { MemberScopeContext, ResourceContext } from '../auth/context.js';
import type { ServiceClients } from '../clients.js';
import { fromFields, text, truthy } from '../http/request.js';
import type { Handler } from '../routes/define.js';
import { serializeActivation, serializeInviteData, serializeInvitePreview } from '../serializers/community.js';

/** Invitations (document 2 D): preview and activation of a code; docs/adr/0135-0137. */

const READ = { idempotent: true };

/**
 * `invite`: text, trimmed; a missing one reaches the service as '' and gets the operation's own
 * answer there (after the preview's flood counter, which counts every attempt). Form fields are
 * read when there is no JSON body (`fromFields`): the spec's "JSON preferred, else form".
 */
const inviteCode = text.transform((value) => value.trim());

/** `email`: sanitized (trimmed, lowercased); null, blank or not text falls back to the session's. */
const previewEmail = z.unknown().transform((value) => (typeof value === 'string' ? value.trim().toLowerCase() || undefined : undefined));

export const inviteValidationRequest = fromFields({ invite: inviteCode, email: previewEmail, return_invite: truthy });
export const inviteActivationRequest = fromFields({ invite: inviteCode });

/** POST /invite-validation: guest with a resource; a session token only supplies the fallback email. */
export const validateInvite: Handler<'guestWithResource', z.output<typeof inviteValidationRequest>> = async (context, input, clients) => {
  const resourceId = context.resource.id;
  const email = input.email ?? context.caller.user?.email ?? '';
  const preview = await clients.invitations.validateInvite({
    resourceId,
    invite: input.invite,
    email,
    returnInvite: input.return_invite,
    ip: context.ip,
  });
  const invite = preview.invite;
  if (!invite) throw new Error('ValidateInvite answered without its invite');
  const pricingId = invite.pricingId ?? 0;
  const pricing = pricingId ? await clients.pricings.getPricing({ resourceId, pricingId }, READ) : null;
  const body = serializeInvitePreview({ email: email || null, invite, pricing, team: preview.team ?? null });
  if (input.return_invite) {
    const bound = invite.email ?? email;
    body['data'] = serializeInviteData(invite, await memberExists(clients, context, bound));
  }
  return { body };
};

/**
 * `is_user_exist`: whether the invite's email (else the comparison email) is a member of the
 * resource, asked through the email-availability check so that the preview is no way around its
 * per-address limit (docs/adr/0135).
 */
async function memberExists(clients: ServiceClients, context: ResourceContext, email: string): Promise<boolean> {
  if (!email) return false;
  try {
    await clients.identity.validateEmail({ resourceId: context.resource.id, email, ip: context.ip }, READ);
    return false;
  } catch (error) {
    if (isServiceError(error) && error.code === 'user_exists') return true;
    // An invalid email is nobody's; the address limit (429) and outages stay errors.
    if (isServiceError(error) && error.code === 'invalid_email') return false;
    throw error;
  }
}

/** Who asks, as community's Caller: what the member context proves. */
export const communityCaller = (context: MemberScopeContext): Caller => ({
  resourceId: context.resource.id,
  userId: context.caller.user.id,
  email: context.caller.user.email,
  role: context.caller.role,
});

/** A resource setting that is on when its stored value is truthy (`single_subscription`, ...). */
export const resourceFlag = (context: ResourceContext, name: string): boolean => {
  const value = context.resource.settings?.[name];
  return value === true || value === 1 || value === '1' || value === 'true';
};

/** POST /invite-activation: the member activates a code of this resource. */
export const activateInvite: Handler<'member', z.output<typeof inviteActivationRequest>> = async (context, input, clients) => {
  const result = await clients.invitations.activateInvite({
    caller: communityCaller(context),
    invite: input.invite,
    singleSubscription: resourceFlag(context, 'single_subscription'),
  });
  return { body: serializeActivation(result.subscriptionId) };
};
