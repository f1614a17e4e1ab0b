import { isServiceError } from '@masthead/core/errors';
import type { ServiceClient } from '@masthead/core/grpc';
import type { Resource } from '@masthead/proto/accounts';
import type { InvitationsServiceService } from '@masthead/proto/community/invitations';
import { invitationNotAcceptable } from './idp.errors.js';

/** The member an invitation is accepted for. */
export interface InvitedMember {
  id: number;
  email: string;
  role: string;
}

/**
 * Invitation acceptance for the exchange's `invite` (document 1, A). The community service owns
 * invitations; identity asks it over gRPC (docs/adr/0139).
 */
export interface InvitationAcceptor {
  /** Throws 409 verify_failed when the code cannot be accepted in this resource by this email. */
  assertAcceptable(resource: Resource, code: string, email: string): Promise<void>;
  /** Accepts the code for the member once they are known and joined; 409 verify_failed on refusal. */
  accept(resource: Resource, member: InvitedMember, code: string): Promise<void>;
}

/**
 * Community's answer, with its refusals (4xx: invalid_invite, team_invitation_fail, ...) as the
 * exchange's one invitation error; an outage stays what it is, not a verdict on the code.
 */
async function refusalsAsVerifyFailed(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (isServiceError(error) && error.status >= 400 && error.status < 500) throw invitationNotAcceptable();
    throw error;
  }
}

/** The resource's `single_subscription` setting, as POST /invite-activation reads it. */
const singleSubscription = (resource: Resource): boolean => {
  const value: unknown = resource.settings?.['single_subscription'];
  return value === true || value === 1 || value === '1' || value === 'true';
};

export class CommunityInvitations implements InvitationAcceptor {
  constructor(private readonly invitations: ServiceClient<typeof InvitationsServiceService>) {}

  assertAcceptable(resource: Resource, code: string, email: string): Promise<void> {
    return refusalsAsVerifyFailed(this.invitations.checkInvite({ resourceId: resource.id, invite: code, email }, { idempotent: true }));
  }

  accept(resource: Resource, member: InvitedMember, code: string): Promise<void> {
    return refusalsAsVerifyFailed(
      this.invitations.activateInvite({
        caller: { resourceId: resource.id, userId: member.id, email: member.email, role: member.role },
        invite: code,
        singleSubscription: singleSubscription(resource),
      }),
    );
  }
}
