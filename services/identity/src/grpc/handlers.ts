import { httpError } from '@masthead/core/errors';
import type { AsyncImplementation } from '@masthead/core/grpc';
import type { IdentityServiceService } from '@masthead/proto/identity';
import type { MemberAdminService } from '../members/member-admin.service.js';
import type { Authenticator } from '../sessions/authenticator.js';
import type { CredentialExchange } from '../sessions/credential-exchange.service.js';
import type { SessionService } from '../sessions/session.service.js';
import type { RefreshService } from '../signin/refresh.service.js';
import { parseSignIn } from '../signin/sign-in.command.js';
import type { SignInService } from '../signin/sign-in.service.js';
import type { ProfileService } from '../users/profile.service.js';
import { toUserMessage } from '../users/user.projection.js';

interface Deps {
  exchange: CredentialExchange;
  refresh: RefreshService;
  sessions: SessionService;
  authenticator: Authenticator;
  signIn: SignInService;
  profiles: ProfileService;
  members: MemberAdminService;
}

const orNull = (value: string) => value || null;

export function identityHandlers({
  exchange,
  refresh,
  sessions,
  authenticator,
  signIn,
  profiles,
  members,
}: Deps): AsyncImplementation<typeof IdentityServiceService> {
  return {
    authenticate: ({ token, resourceId }) => authenticator.authenticate(token, resourceId),

    signIn: async (request, { requestId }) => {
      const command = parseSignIn(request);
      const outcome = await signIn.signIn(command, {
        requestId,
        guestSession: orNull(request.guestSession),
        sourceType: orNull(request.sourceType),
        ip: orNull(request.ip),
        userAgent: orNull(request.userAgent),
      });
      const resourceId = outcome.issued.session.resource_id;
      const [memberships, summary] = resourceId
        ? await Promise.all([
            profiles.memberships(resourceId, outcome.user._id, requestId),
            profiles.summary(resourceId, outcome.user._id, requestId),
          ])
        : [
            { items: [], history: [] },
            { teams: [], assignedTickets: [] },
          ];
      return {
        user: toUserMessage(outcome.user),
        token: outcome.includeToken ? outcome.issued.token : '',
        refreshToken: outcome.includeToken ? outcome.issued.refreshToken : '',
        sessionId: outcome.issued.session._id,
        expires: Math.floor(outcome.issued.session.expires_at.getTime() / 1000),
        subscriptions: memberships.items,
        teams: summary.teams,
        code: outcome.code ?? undefined,
        redirectUri: outcome.redirectUri ?? undefined,
      };
    },

    getProfile: ({ userId, resourceId }, { requestId }) => profiles.profile(userId, resourceId, requestId),

    refresh: (request, { requestId }) => refresh.refresh(request, requestId),

    exchangeCode: async ({ resourceId, code, redirectUri }) => {
      if (!code.trim() || code.length > 512) throw httpError(409, 'invalid_code', 'code is required');
      const issued = await exchange.exchangeCode({ resourceId, code: code.trim(), redirectUri: redirectUri.trim() });
      return {
        token: issued.token,
        refreshToken: issued.refreshToken,
        sessionId: issued.session._id,
        expires: Math.floor(issued.session.expires_at.getTime() / 1000),
      };
    },

    logout: async ({ sessionId }) => {
      await sessions.logout(sessionId);
      return {};
    },

    cleanupRefresh: async ({ userId }) => {
      await sessions.cleanupRefresh(userId);
      return {};
    },

    upsertMember: async (request) =>
      toUserMessage(
        await members.upsert({
          resourceId: request.resourceId,
          email: request.email,
          password: request.password,
          firstName: request.firstName ?? null,
          lastName: request.lastName ?? null,
          role: request.role,
        }),
      ),
  };
}
