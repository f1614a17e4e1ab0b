import { invitationNotAcceptable } from './idp.errors.js';

/**
 * Invitation acceptance for the exchange's `invite` (document 1, A). The community service owns
 * invitations; until it offers acceptance, every code is refused before anything is written.
 */
export interface InvitationAcceptor {
  /** Throws 409 verify_failed when the code cannot be accepted in this resource. */
  assertAcceptable(resourceId: number, code: string, requestId: string): Promise<void>;
  /** Accepts the code for the member once they are known and joined. */
  accept(resourceId: number, userId: number, code: string, requestId: string): Promise<void>;
}

/** The acceptor while the community service has no invitation API (ADR 0050). */
export class UnavailableInvitations implements InvitationAcceptor {
  assertAcceptable(): Promise<void> {
    return Promise.reject(invitationNotAcceptable());
  }

  accept(): Promise<void> {
    return Promise.reject(invitationNotAcceptable());
  }
}
