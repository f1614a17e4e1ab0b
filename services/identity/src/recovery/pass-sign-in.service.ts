import { isServiceError } from '@masthead/core/errors';
import type { ClientOf } from '@masthead/core/clients';
import type { Resource } from '@masthead/proto/accounts';
import type { SignInResponse } from '@masthead/proto/identity';
import type { SessionContext } from '../signin/session-starter.js';
import { authorizationFail } from '../signin/sign-in.errors.js';
import type { UserRepository } from '../users/user.repository.js';
import type { RecoveredSession } from './recovered-session.js';
import type { RecoveryLimits } from './recovery-limits.js';

/** Who a pass authorization token stands for; community owns passes and their tokens. */
export interface PassVoucher {
  /** The attendee's user ID, or null when community does not vouch for the token. */
  attendeeOf(resourceId: number, token: string): Promise<number | null>;
}

/** Community's RedeemPassToken: a refusal (4xx) is no attendee; an outage stays an error. */
export class CommunityPassVoucher implements PassVoucher {
  constructor(private readonly passes: ClientOf<'passes'>) {}

  async attendeeOf(resourceId: number, token: string): Promise<number | null> {
    try {
      return (await this.passes.redeemPassToken({ resourceId, token }, { idempotent: true })).userId;
    } catch (error) {
      if (isServiceError(error) && error.status >= 400 && error.status < 500) return null;
      throw error;
    }
  }
}

interface PassSignInDeps {
  users: UserRepository;
  limits: RecoveryLimits;
  recovered: RecoveredSession;
  voucher: PassVoucher;
}

/**
 * POST /ti-event/ticket/pass/authorization (docs/adr/0153): a pass authorization token signs its
 * attendee in, with sign-in's rules and answer. Identity mints the session only for a member
 * community vouches for; no call can ask it to sign in an arbitrary user.
 */
export class PassSignInService {
  constructor(private readonly deps: PassSignInDeps) {}

  /** 401 authorization_fail for a token without attendee, or an attendee who may not sign in. */
  async signIn(resource: Resource, token: string, context: SessionContext): Promise<SignInResponse> {
    await this.deps.limits.attempt(context.ip ?? '');
    const userId = token ? await this.deps.voucher.attendeeOf(resource.id, token) : null;
    const user = userId === null ? null : await this.deps.users.findById(userId);
    if (!user) throw authorizationFail();
    const relationship = await this.deps.recovered.assertMaySignIn(user, resource.id);
    return this.deps.recovered.start(user, resource, relationship, context);
  }
}
