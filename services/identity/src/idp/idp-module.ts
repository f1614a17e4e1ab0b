import type { ServiceClient } from '@masthead/core/grpc';
import type { ServiceRuntime } from '@masthead/core/service';
import type { InvitationsServiceService } from '@masthead/proto/community/invitations';
import type { IdentityConfig } from '../config.js';
import type { EntitlementTokens } from '../entitlements/entitlement-tokens.js';
import { idpHandlers } from '../grpc/idp.handlers.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { ResourceDirectory } from '@masthead/core/resources';
import type { SessionStarter } from '../signin/session-starter.js';
import type { AddressLimiter } from '../throttling/address-limiter.js';
import type { UserRepository } from '../users/user.repository.js';
import type { Docstore } from './docstore.js';
import { DocstoreUserService } from './docstore-user.service.js';
import { EmailRelationshipService } from './email-relationship.service.js';
import { FirebaseApps } from './firebase-apps.js';
import { FirebaseProvider } from './firebase-provider.js';
import { FirestoreDocstore } from './firestore-docstore.js';
import { IdentityLinker } from './identity-linker.js';
import { IdpLinkRepository } from './idp-link.repository.js';
import { CommunityInvitations } from './invitations.js';
import { LocalDocstore } from './local-docstore.js';
import { MemberProviderTokens } from './member-provider-tokens.js';
import { ProviderMailService } from './provider-mail.service.js';
import { ProviderSignInService } from './provider-sign-in.service.js';
import { TokenExchangeService } from './token-exchange.service.js';

interface IdpModuleDeps {
  runtime: ServiceRuntime;
  config: IdentityConfig;
  users: UserRepository;
  relationships: RelationshipRepository;
  starter: SessionStarter;
  limiter: AddressLimiter;
  resources: ResourceDirectory;
  /** Community's invitations, for the exchange's `invite` (docs/adr/0139). */
  invitations: ServiceClient<typeof InvitationsServiceService>;
  entitlements: EntitlementTokens;
}

/** Wires the identity-provider area (document 1, A); the composition root registers its handlers. */
export async function createIdpModule(deps: IdpModuleDeps) {
  const { runtime, config } = deps;
  const links = new IdpLinkRepository(runtime.db);
  await links.ready();
  const apps = new FirebaseApps({ emulatorHost: config.FIREBASE_AUTH_EMULATOR_HOST, credentialsFile: config.IDP_CREDENTIALS_FILE });
  const provider = new FirebaseProvider({ apps, timeoutMs: config.IDP_TIMEOUT_MS, logger: runtime.logger });
  const docstore: Docstore = config.DOCSTORE_BACKEND === 'local' ? new LocalDocstore(runtime.db) : new FirestoreDocstore(apps);
  const { users, relationships, starter, limiter, resources } = deps;
  const linker = new IdentityLinker({ links, users, relationships, starter, docstore, logger: runtime.logger });
  const tokens = new MemberProviderTokens(provider, links, runtime.logger);
  const handlers = idpHandlers({
    resources,
    provider,
    linker,
    tokens,
    exchange: new TokenExchangeService({
      provider,
      linker,
      starter,
      invitations: new CommunityInvitations(deps.invitations),
      entitlements: deps.entitlements,
    }),
    providerSignIn: new ProviderSignInService({ provider, limiter, limitPerHour: config.IDP_SIGN_IN_LIMIT_PER_HOUR }),
    mail: new ProviderMailService({ provider, limiter, limitPerHour: config.IDP_MAIL_LIMIT_PER_HOUR }),
    emailRelationships: new EmailRelationshipService({
      users,
      relationships,
      links,
      limiter,
      limitPerHour: config.EMAIL_VALIDATION_LIMIT_PER_HOUR,
    }),
    docstoreUsers: new DocstoreUserService(docstore, links),
  });
  return { handlers, tokens };
}
