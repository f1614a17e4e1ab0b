import { createClients } from '@masthead/core/clients';
import type { Logger } from '@masthead/core/logging';
import { openServiceRuntime, serveRuntime, type RunningService } from '@masthead/core/service';
import { ResourceDirectory } from '@masthead/core/resources';
import { IdentityServiceService } from '@masthead/proto/identity';
import { IdentityProviderServiceService } from '@masthead/proto/identity/idp';
import { MemberAccessServiceService } from '@masthead/proto/identity/access';
import { ProfileServiceService } from '@masthead/proto/identity/profile';
import { ExtraDataServiceService } from '@masthead/proto/identity/extra_data';
import { SocialIdentityServiceService } from '@masthead/proto/identity/social';
import { createAccessModule } from './access/access.module.js';
import { MemberSessions } from './access/member-sessions.js';
import type { IdentityConfig } from './config.js';
import { CredentialRepository } from './credentials/credential.repository.js';
import { RecentCredentials } from './credentials/recent-credentials.js';
import { createEntitlementsModule } from './entitlements/entitlements.module.js';
import { createExtraDataModule } from './extra-data/extra-data.module.js';
import { identityHandlers } from './grpc/handlers.js';
import { profileHandlers } from './grpc/profile.handlers.js';
import { createIdpModule } from './idp/idp-module.js';
import { MemberAdminService } from './members/member-admin.service.js';
import { PasswordHasher } from './passwords/password-hasher.js';
import { createProfileWrites } from './profile/profile-writes.js';
import { TagRepository } from './profile/tag.repository.js';
import { CommunityPassVoucher } from './recovery/pass-sign-in.service.js';
import { createRecovery } from './recovery/recovery.module.js';
import { RelationshipRepository } from './relationships/relationship.repository.js';
import { AccessAnnouncer } from './sessions/access-announcer.js';
import { createSessionsModule } from './sessions/sessions.module.js';
import { createSignInModule } from './signin/signin.module.js';
import { createSocialModule } from './social/social.module.js';
import { createThrottlingModule } from './throttling/throttling.module.js';
import { ProfileCache } from './users/profile-cache.js';
import { ProfileService } from './users/profile.service.js';
import { ServiceAccountUserService } from './users/service-account-user.service.js';
import { UserRepository } from './users/user.repository.js';

export type { IdentityConfig } from './config.js';
export { identityEnv, loadIdentityConfig } from './config.js';

/** Composition root: config → connections → repositories → domain → gRPC handlers. */
export async function startIdentityService(config: IdentityConfig, logger?: Logger): Promise<RunningService> {
  const runtime = await openServiceRuntime('identity', config, logger);
  const clientOptions = { defaultDeadlineMs: config.GRPC_DEADLINE_MS };
  const addresses = { accounts: config.ACCOUNTS_ADDR, catalog: config.CATALOG_ADDR, community: config.COMMUNITY_ADDR };
  const { accounts, localization, memberships, community, invitations, passes } = createClients(
    ['accounts', 'localization', 'memberships', 'community', 'invitations', 'passes'],
    addresses,
    clientOptions,
  );

  // The stores every area reads: users, their relationships and the member-session index. Every
  // write of a user or relationship drops the member's cached profile (ADR 0191).
  const profileCache = new ProfileCache(config.PROFILE_CACHE_TTL_MS);
  profileCache.listen(runtime.nats, runtime.logger);
  // Their security fields are credential versions (docs/adr/0210), shared by both repositories.
  const recentCredentials = new RecentCredentials(config.CREDENTIALS_CACHE_TTL_MS);
  recentCredentials.listen(runtime.nats, runtime.logger);
  const credentials = new CredentialRepository({ db: runtime.db, changes: profileCache, recent: recentCredentials });
  const users = new UserRepository({ db: runtime.db, changes: profileCache, credentials });
  const memberSessions = new MemberSessions(runtime.db);
  const relationships = new RelationshipRepository({ db: runtime.db, memberSessions, changes: profileCache, credentials });
  const tags = new TagRepository(runtime.db);
  await Promise.all([users.ready(), relationships.ready(), credentials.ready()]);

  const hasher = new PasswordHasher({
    memoryKib: config.ARGON2_MEMORY_KIB,
    iterations: config.ARGON2_ITERATIONS,
    parallelism: config.ARGON2_PARALLELISM,
    concurrency: config.HASH_CONCURRENCY,
    queueLimit: config.HASH_QUEUE_LIMIT,
    maxWaitMs: config.HASH_QUEUE_WAIT_MS,
  });
  await hasher.warm();
  const resources = new ResourceDirectory({ accounts, ttlMs: config.RESOURCE_CACHE_TTL_MS });
  resources.listen(runtime.nats, runtime.logger);
  const profiles = new ProfileService({ users, relationships, memberships, community, cache: profileCache });
  // Entitlement tokens; endings of access go to their revocation lists (docs/adr/0246–0248).
  const entitlements = await createEntitlementsModule({ runtime, config, resources, profiles });
  const access = new AccessAnnouncer(runtime.events, entitlements.revocations);

  // The areas, each from its module factory; later ones borrow from earlier ones.
  const sessions = await createSessionsModule({ runtime, config, memberships, users, relationships, access });
  const { starter } = sessions;
  const throttling = createThrottlingModule({ runtime });
  const { throttle, limiter } = throttling;
  const extraData = await createExtraDataModule({ runtime, relationships });
  const memberAccess = createAccessModule({
    runtime,
    users,
    relationships,
    memberSessions,
    announcer: access,
    memberData: [
      { removeMemberData: (userId, resourceId) => tags.removeInResource(userId, resourceId) },
      { removeMemberData: (userId, resourceId) => extraData.repository.removeAll({ userId, resourceId }) },
    ],
  });
  const { lockPolicy } = memberAccess;
  const idp = await createIdpModule({
    runtime,
    config,
    users,
    relationships,
    starter,
    limiter,
    resources,
    invitations,
    entitlements: entitlements.tokens,
  });
  const recovery = await createRecovery({
    runtime,
    config,
    users,
    relationships,
    sessions: sessions.sessions,
    sessionRepository: sessions.repository,
    hasher,
    resources,
    starter,
    throttle,
    limiter,
    profiles,
    entitlements: entitlements.tokens,
    access,
    passVoucher: new CommunityPassVoucher(passes),
  });
  const signIn = createSignInModule({
    runtime,
    config,
    users,
    relationships,
    hasher,
    resources,
    starter,
    sessions: sessions.sessions,
    exchange: sessions.exchange,
    throttle,
    limiter,
    lockPolicy,
    mailer: recovery.mailer,
    providerTokens: idp.tokens,
    entitlements: entitlements.tokens,
  });
  const social = await createSocialModule({
    runtime,
    config,
    users,
    relationships,
    resources,
    starter,
    lockPolicy,
    profiles,
    entitlements: entitlements.tokens,
  });
  const profileWrites = await createProfileWrites({
    runtime,
    config,
    localization,
    users,
    relationships,
    sessionRepository: sessions.repository,
    hasher,
    throttle,
    access,
  });
  const implementation = identityHandlers({
    ...signIn,
    resources,
    exchange: sessions.exchange,
    sessions: sessions.sessions,
    relationships,
    authenticator: sessions.authenticator,
    profiles,
    entitlements: entitlements.tokens,
    members: new MemberAdminService({ users, relationships, hasher, access }),
    serviceAccountUsers: new ServiceAccountUserService({ users, relationships }),
    users,
  });
  return serveRuntime(
    runtime,
    config.GRPC_LISTEN,
    [
      { name: 'masthead.identity.v1.IdentityService', definition: IdentityServiceService, implementation },
      { name: 'masthead.identity.v1.IdentityProviderService', definition: IdentityProviderServiceService, implementation: idp.handlers },
      { name: 'masthead.identity.v1.MemberAccessService', definition: MemberAccessServiceService, implementation: memberAccess.handlers },
      recovery.service,
      {
        name: 'masthead.identity.v1.ProfileService',
        definition: ProfileServiceService,
        implementation: profileHandlers(profileWrites),
      },
      { name: 'masthead.identity.v1.ExtraDataService', definition: ExtraDataServiceService, implementation: extraData.handlers },
      { name: 'masthead.identity.v1.SocialIdentityService', definition: SocialIdentityServiceService, implementation: social },
      entitlements.service,
    ],
    async () => {
      throttling.stop();
      sessions.stop();
      entitlements.stop();
      await recovery.drain();
      for (const client of [accounts, localization, memberships, community, invitations, passes]) client.close();
    },
  );
}
