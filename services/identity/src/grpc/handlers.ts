import { sessionContextOf } from './session-context.js';
import type { AsyncImplementation } from '@masthead/core/grpc';
import type { IdentityServiceService } from '@masthead/proto/identity';
import { readMember } from '../credentials/member-read.js';
import type { MemberAdminService } from '../members/member-admin.service.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { Authenticator } from '../sessions/authenticator.js';
import type { CredentialExchange } from '../sessions/credential-exchange.service.js';
import type { SessionService } from '../sessions/session.service.js';
import type { EmailAvailabilityService } from '../signin/email-availability.service.js';
import type { RefreshService } from '../signin/refresh.service.js';
import type { RegistrationService } from '../signin/registration.service.js';
import type { ResourceDirectory } from '@masthead/core/resources';
import { toSessionResult } from '../signin/session-result.js';
import { parseSignIn } from '../signin/sign-in.command.js';
import type { SignInService } from '../signin/sign-in.service.js';
import type { EntitlementTokens } from '../entitlements/entitlement-tokens.js';
import type { ProfileService } from '../users/profile.service.js';
import type { ServiceAccountUserService } from '../users/service-account-user.service.js';
import { toUserMessage } from '../users/user.projection.js';
import type { UserRepository } from '../users/user.repository.js';
import { invalidCode } from '../recovery/recovery.errors.js';
import { toRelationshipStatus } from '../relationships/relationship-status.js';

interface Deps {
  emailAvailability: EmailAvailabilityService;
  registration: RegistrationService;
  resources: ResourceDirectory;
  exchange: CredentialExchange;
  refresh: RefreshService;
  sessions: SessionService;
  relationships: RelationshipRepository;
  authenticator: Authenticator;
  signIn: SignInService;
  profiles: ProfileService;
  entitlements: EntitlementTokens;
  members: MemberAdminService;
  serviceAccountUsers: ServiceAccountUserService;
  users: UserRepository;
}

export function identityHandlers({
  emailAvailability,
  registration,
  resources,
  exchange,
  refresh,
  sessions,
  relationships,
  authenticator,
  signIn,
  profiles,
  entitlements,
  members,
  serviceAccountUsers,
  users,
}: Deps): AsyncImplementation<typeof IdentityServiceService> {
  return {
    authenticate: ({ token, resourceId }) => authenticator.authenticate(token, resourceId),

    signIn: async (request, { requestId }) => {
      const outcome = await signIn.signIn(parseSignIn(request), sessionContextOf(request, requestId));
      return toSessionResult(outcome, { profiles, entitlements });
    },

    register: async (request, { requestId }) => {
      const resource = await resources.get(request.resourceId);
      const command = {
        email: request.email,
        password: request.password,
        firstName: request.firstName ?? null,
        lastName: request.lastName ?? null,
      };
      const outcome = await registration.register(command, resource, sessionContextOf(request, requestId));
      return toSessionResult(outcome, { profiles, entitlements });
    },

    getProfile: ({ userId, resourceId }) => profiles.profile(userId, resourceId),

    validateEmail: async ({ resourceId, email, ip }) => {
      await emailAvailability.validate(resourceId, email, ip);
      return {};
    },

    refresh: (request) => refresh.refresh(request),

    exchangeCode: async ({ resourceId, code, redirectUri }) => {
      if (!code.trim() || code.length > 512) throw invalidCode();
      const issued = await exchange.exchangeCode({ resourceId, code: code.trim(), redirectUri: redirectUri.trim() });
      return {
        token: issued.token,
        refreshToken: issued.refreshToken,
        sessionId: issued.session._id,
        expires: Math.floor(issued.expiresAt.getTime() / 1000),
        entitlementToken: await entitlements.beside(issued.session),
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
    // For the grouped member reads of document 1 E (catalog, billing).
    listUserResources: async ({ userId }) => ({ resourceIds: userId > 0 ? await relationships.listResourceIds(userId) : [] }),

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

    createServiceAccountUser: async ({ resourceId, title }) => toUserMessage(await serviceAccountUsers.create(resourceId, title)),
    getServiceAccountUser: ({ userId, resourceId }) => serviceAccountUsers.get(userId, resourceId),
    // For another service's member rules (integrations' target selection, ADR 0161).
    getMember: async ({ userId, resourceId }) => {
      const { user, relationship } =
        userId > 0 ? await readMember({ users, relationships }, userId, Math.max(resourceId, 0)) : { user: null, relationship: null };
      return {
        user: user ? toUserMessage(user, relationship?.extra) : undefined,
        globalRole: user?.role ?? '',
        relationship: toRelationshipStatus(relationship),
        resourceRole: relationship?.role ?? '',
      };
    },

    listUserCountries: () => users.countries(),
  };
}
