import type { AsyncImplementation } from '@masthead/core/grpc';
import type { IdentityServiceService } from '@masthead/proto/identity';
import type { MemberAdminService } from '../members/member-admin.service.js';
import type { Authenticator } from '../sessions/authenticator.js';
import { parseSignIn } from '../signin/sign-in.command.js';
import type { SignInService } from '../signin/sign-in.service.js';
import type { ProfileService } from '../users/profile.service.js';
import { toUserMessage } from '../users/user.projection.js';
import type { UserRepository } from '../users/user.repository.js';

interface Deps {
  authenticator: Authenticator;
  signIn: SignInService;
  profiles: ProfileService;
  members: MemberAdminService;
  users: UserRepository;
}

const orNull = (value: string) => value || null;

export function identityHandlers({
  authenticator,
  signIn,
  profiles,
  members,
  users,
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

    listUserCountries: () => users.countries(),
  };
}
