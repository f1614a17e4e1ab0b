import { createClients } from '@masthead/core/clients';
import type { Logger } from '@masthead/core/logging';
import { openServiceRuntime, serveRuntime, type RunningService } from '@masthead/core/service';
import { IdentityServiceService } from '@masthead/proto/identity';
import { IdentityProviderServiceService } from '@masthead/proto/identity/idp';
import { MemberAccessServiceService } from '@masthead/proto/identity/access';
import { ProfileServiceService } from '@masthead/proto/identity/profile';
import { ExtraDataServiceService } from '@masthead/proto/identity/extra_data';
import { SocialIdentityServiceService } from '@masthead/proto/identity/social';
import { AccessChanges } from './access/access-changes.js';
import { LockPolicy } from './access/lock-policy.js';
import { MemberAccessService } from './access/member-access.service.js';
import { MemberSessions } from './access/member-sessions.js';
import { RelationshipTransitions } from './access/relationship-transitions.js';
import type { IdentityConfig } from './config.js';
import { ExtraDataRepository } from './extra-data/extra-data.repository.js';
import { ExtraDataService } from './extra-data/extra-data.service.js';
import { memberAccessHandlers } from './grpc/access.handlers.js';
import { extraDataHandlers } from './grpc/extra-data.handlers.js';
import { identityHandlers } from './grpc/handlers.js';
import { profileHandlers } from './grpc/profile.handlers.js';
import { socialHandlers } from './grpc/social.handlers.js';
import { createIdpModule } from './idp/idp-module.js';
import { MemberAdminService } from './members/member-admin.service.js';
import { PasswordHasher } from './passwords/password-hasher.js';
import { TagRepository } from './profile/tag.repository.js';
import { createRecovery } from './recovery/recovery.module.js';
import { RelationshipRepository } from './relationships/relationship.repository.js';
import { ResourceDirectory } from '@masthead/core/resources';
import { AccessAnnouncer } from './sessions/access-announcer.js';
import { Authenticator } from './sessions/authenticator.js';
import { AddressLimiter } from './throttling/address-limiter.js';
import { SignInThrottle } from './throttling/sign-in-throttle.js';
import { CredentialExchange } from './sessions/credential-exchange.service.js';
import { SessionRepository } from './sessions/session.repository.js';
import { SessionService } from './sessions/session.service.js';
import { MembershipAttacher } from './signin/membership-attacher.js';
import { EmailAvailabilityService } from './signin/email-availability.service.js';
import { RefreshService } from './signin/refresh.service.js';
import { RegistrationService } from './signin/registration.service.js';
import { InFlightClaims } from './throttling/in-flight.js';
import { SessionStarter } from './signin/session-starter.js';
import { SignInService } from './signin/sign-in.service.js';
import { IdTokenVerifier } from './social/id-token-verifier.js';
import { SocialLinkRepository } from './social/social-link.repository.js';
import { SocialLinkService } from './social/social-link.service.js';
import { SocialSignInService } from './social/social-sign-in.service.js';
import { ProfileService } from './users/profile.service.js';
import { createProfileWrites } from './profile/profile-writes.js';
import { ServiceAccountUserService } from './users/service-account-user.service.js';
import { UserRepository } from './users/user.repository.js';

export type { IdentityConfig } from './config.js';
export { identityEnv, loadIdentityConfig } from './config.js';

/** Composition root: config → connections → repositories → domain → gRPC handlers. */
export async function startIdentityService(config: IdentityConfig, logger?: Logger): Promise<RunningService> {
  const runtime = await openServiceRuntime('identity', config, logger);
  const clientOptions = { defaultDeadlineMs: config.GRPC_DEADLINE_MS };
  const addresses = { accounts: config.ACCOUNTS_ADDR, catalog: config.CATALOG_ADDR, community: config.COMMUNITY_ADDR };
  const { accounts, catalog, community, invitations } = createClients(
    ['accounts', 'catalog', 'community', 'invitations'],
    addresses,
    clientOptions,
  );

  const users = new UserRepository(runtime.db);
  const memberSessions = new MemberSessions(runtime.db);
  const relationships = new RelationshipRepository({ db: runtime.db, memberSessions });
  const sessionRepository = new SessionRepository(runtime.db);
  const extraData = new ExtraDataRepository(runtime.db);
  const socialLinks = new SocialLinkRepository(runtime.db);
  await Promise.all([users.ready(), relationships.ready(), sessionRepository.ready(), extraData.ready(), socialLinks.ready()]);

  const hasher = new PasswordHasher({
    memoryKib: config.ARGON2_MEMORY_KIB,
    iterations: config.ARGON2_ITERATIONS,
    parallelism: config.ARGON2_PARALLELISM,
    concurrency: config.HASH_CONCURRENCY,
    queueLimit: config.HASH_QUEUE_LIMIT,
    maxWaitMs: config.HASH_QUEUE_WAIT_MS,
  });
  await hasher.warm();
  const access = new AccessAnnouncer(runtime.events);
  const sessions = new SessionService(
    sessionRepository,
    {
      sessionTtlSeconds: config.SESSION_TTL_SECONDS,
      refreshTtlSeconds: config.REFRESH_TTL_SECONDS,
      authCodeTtlSeconds: config.AUTH_CODE_TTL_SECONDS,
    },
    access,
  );
  const resources = new ResourceDirectory({ accounts, ttlMs: config.RESOURCE_CACHE_TTL_MS });
  resources.listen(runtime.nats, runtime.logger);
  const profiles = new ProfileService({ users, relationships, catalog, community });
  const starter = new SessionStarter({
    relationships,
    sessions,
    memberships: new MembershipAttacher(catalog, runtime.logger),
    events: runtime.events,
  });
  const throttle = new SignInThrottle(runtime.db);
  const limiter = new AddressLimiter(runtime.db);
  const sweep = setInterval(
    () => limiter.sweep().catch((error: unknown) => runtime.logger.warn({ err: error }, 'window sweep failed')),
    10 * 60_000,
  );
  sweep.unref();
  const accessChanges = new AccessChanges(new RelationshipTransitions(runtime.db), memberSessions, runtime.events, access);
  const lockPolicy = new LockPolicy({ sessions: memberSessions, changes: accessChanges, events: runtime.events, announcer: access });
  const signIn = new SignInService({
    users,
    relationships,
    hasher,
    resources,
    starter,
    throttle,
    // Two: a double-submitted form still signs in; a burst on one account costs two hashes.
    inFlight: new InFlightClaims(2),
    lockPolicy,
    logger: runtime.logger,
  });

  const extraDataApi = extraDataHandlers(
    new ExtraDataService({ extraData, relationships, events: runtime.events, logger: runtime.logger }),
  );
  const verifier = new IdTokenVerifier(config.SOCIAL_PROVIDERS, {
    jwksTimeoutMs: config.SOCIAL_JWKS_TIMEOUT_MS,
    clockToleranceSeconds: config.SOCIAL_CLOCK_TOLERANCE_SECONDS,
  });
  const social = socialHandlers({
    verifier,
    signIn: new SocialSignInService({
      verifier,
      links: socialLinks,
      users,
      relationships,
      resources,
      starter,
      lockPolicy,
      logger: runtime.logger,
    }),
    links: new SocialLinkService({ verifier, links: socialLinks, logger: runtime.logger }),
    profiles,
  });

  const exchange = new CredentialExchange(sessionRepository, sessions, { reuseIntervalSeconds: config.REFRESH_REUSE_INTERVAL_SECONDS });
  // Sealed refresh answers are kept only for their reuse window (ADR 0086).
  const reuseSweep = setInterval(
    () => sessionRepository.eraseExpiredReuse().catch((error: unknown) => runtime.logger.warn({ err: error }, 'reuse sweep failed')),
    60_000,
  );
  reuseSweep.unref();
  const idp = await createIdpModule(runtime, config, { users, relationships, starter, limiter, resources, invitations });
  const recovery = await createRecovery({
    runtime,
    config,
    users,
    relationships,
    sessions,
    sessionRepository,
    hasher,
    resources,
    starter,
    throttle,
    limiter,
    profiles,
    access,
  });
  const implementation = identityHandlers({
    emailAvailability: new EmailAvailabilityService({
      limiter,
      limitPerHour: config.EMAIL_VALIDATION_LIMIT_PER_HOUR,
      users,
      relationships,
    }),
    registration: new RegistrationService({
      limiter,
      limitPerHour: config.REGISTRATION_LIMIT_PER_HOUR,
      users,
      relationships,
      hasher,
      starter,
      inFlight: new InFlightClaims(1),
      mailer: recovery.mailer,
    }),
    resources,
    exchange,
    refresh: new RefreshService({ exchange, sessions, resources, relationships, providerTokens: idp.tokens }),
    sessions,
    relationships,
    authenticator: new Authenticator(sessions, users, relationships),
    signIn,
    profiles,
    members: new MemberAdminService(users, relationships, hasher, access),
    serviceAccountUsers: new ServiceAccountUserService(users, relationships),
    users,
  });
  const tags = new TagRepository(runtime.db);
  const memberAccess = new MemberAccessService({
    relationships,
    users,
    changes: accessChanges,
    memberData: [
      { removeMemberData: (userId, resourceId) => tags.removeInResource(userId, resourceId) },
      { removeMemberData: (userId, resourceId) => extraData.removeAll({ userId, resourceId }) },
    ],
  });
  return serveRuntime(
    runtime,
    config.GRPC_LISTEN,
    [
      { name: 'masthead.identity.v1.IdentityService', definition: IdentityServiceService, implementation },
      { name: 'masthead.identity.v1.IdentityProviderService', definition: IdentityProviderServiceService, implementation: idp.handlers },
      {
        name: 'masthead.identity.v1.MemberAccessService',
        definition: MemberAccessServiceService,
        implementation: memberAccessHandlers(memberAccess),
      },
      recovery.service,
      {
        name: 'masthead.identity.v1.ProfileService',
        definition: ProfileServiceService,
        implementation: profileHandlers(
          await createProfileWrites({ runtime, config, accounts, users, relationships, sessionRepository, hasher, throttle, access }),
        ),
      },
      { name: 'masthead.identity.v1.ExtraDataService', definition: ExtraDataServiceService, implementation: extraDataApi },
      { name: 'masthead.identity.v1.SocialIdentityService', definition: SocialIdentityServiceService, implementation: social },
    ],
    async () => {
      clearInterval(sweep);
      await recovery.drain();
      for (const client of [accounts, catalog, community, invitations]) client.close();
    },
  );
}
