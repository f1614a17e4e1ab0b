import type { ClientOf } from '@masthead/core/clients';
import type { ServiceRuntime } from '@masthead/core/service';
import type { IdentityConfig } from '../config.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import { MembershipAttacher } from '../signin/membership-attacher.js';
import { SessionStarter } from '../signin/session-starter.js';
import type { UserRepository } from '../users/user.repository.js';
import type { AccessAnnouncer } from './access-announcer.js';
import { Authenticator } from './authenticator.js';
import { CredentialExchange } from './credential-exchange.service.js';
import { SessionRepository } from './session.repository.js';
import { SessionService } from './session.service.js';

export interface SessionsModuleDeps {
  runtime: ServiceRuntime;
  config: IdentityConfig;
  memberships: ClientOf<'memberships'>;
  users: UserRepository;
  relationships: RelationshipRepository;
  access: AccessAnnouncer;
}

/** The sessions area: issuing, refreshing and checking sessions, and starting one for a sign-in. */
export async function createSessionsModule(deps: SessionsModuleDeps) {
  const { runtime, config, users, relationships, access } = deps;
  const repository = new SessionRepository(runtime.db);
  await repository.ready();
  const sessions = new SessionService({
    repository,
    policy: {
      sessionTtlSeconds: config.SESSION_TTL_SECONDS,
      refreshTtlSeconds: config.REFRESH_TTL_SECONDS,
      authCodeTtlSeconds: config.AUTH_CODE_TTL_SECONDS,
    },
    access,
  });
  const starter = new SessionStarter({
    relationships,
    sessions,
    memberships: new MembershipAttacher({ memberships: deps.memberships, logger: runtime.logger }),
    events: runtime.events,
  });
  // Sealed refresh answers are kept only for their reuse window (ADR 0086).
  const reuseSweep = setInterval(
    () => repository.eraseExpiredReuse().catch((error: unknown) => runtime.logger.warn({ err: error }, 'reuse sweep failed')),
    60_000,
  );
  reuseSweep.unref();
  return {
    repository,
    sessions,
    starter,
    exchange: new CredentialExchange({ repository, sessions, reuse: { reuseIntervalSeconds: config.REFRESH_REUSE_INTERVAL_SECONDS } }),
    authenticator: new Authenticator({ sessions, users, relationships }),
    stop: () => clearInterval(reuseSweep),
  };
}
