import type { SignInResponse } from '@masthead/proto/identity';
import { toUserMessage } from '../users/user.projection.js';
import type { ProfileService } from '../users/profile.service.js';
import type { SignInOutcome } from './sign-in.service.js';

/** The session result of sign-in and registration: user, credentials, memberships and teams. */
export async function toSessionResult(outcome: SignInOutcome, profiles: ProfileService): Promise<SignInResponse> {
  const resourceId = outcome.issued.session.resource_id;
  const view = resourceId ? await profiles.resourceView(resourceId, outcome.user._id) : null;
  return {
    user: toUserMessage(outcome.user),
    token: outcome.includeToken ? outcome.issued.token : '',
    refreshToken: outcome.includeToken ? outcome.issued.refreshToken : '',
    sessionId: outcome.issued.session._id,
    expires: Math.floor(outcome.issued.expiresAt.getTime() / 1000),
    subscriptions: view?.memberships.items ?? [],
    teams: view?.summary.teams ?? [],
    code: outcome.code ?? undefined,
    redirectUri: outcome.redirectUri ?? undefined,
  };
}
