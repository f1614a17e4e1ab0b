import type { SignInResponse } from '@masthead/proto/identity';
import type { EntitlementTokens } from '../entitlements/entitlement-tokens.js';
import { toUserMessage } from '../users/user.projection.js';
import type { ProfileService } from '../users/profile.service.js';
import type { SignInOutcome } from './sign-in.service.js';

/** What a session result is assembled from besides the outcome. */
export interface SessionResultSources {
  profiles: ProfileService;
  entitlements: EntitlementTokens;
}

/**
 * The session result of sign-in and registration: user, credentials, memberships and teams, and
 * beyond the spec the entitlement token, signed from the same memberships (docs/adr/0246).
 */
export async function toSessionResult(outcome: SignInOutcome, { profiles, entitlements }: SessionResultSources): Promise<SignInResponse> {
  const session = outcome.issued.session;
  const view = session.resource_id ? await profiles.resourceView(session.resource_id, outcome.user._id) : null;
  return {
    user: toUserMessage(outcome.user),
    token: outcome.includeToken ? outcome.issued.token : '',
    refreshToken: outcome.includeToken ? outcome.issued.refreshToken : '',
    sessionId: session._id,
    expires: Math.floor(outcome.issued.expiresAt.getTime() / 1000),
    subscriptions: view?.memberships.items ?? [],
    teams: view?.summary.teams ?? [],
    code: outcome.code ?? undefined,
    redirectUri: outcome.redirectUri ?? undefined,
    // Only beside the session token: a code is exchanged for both later.
    entitlementToken: outcome.includeToken && view ? await entitlements.beside(session, view) : undefined,
  };
}
