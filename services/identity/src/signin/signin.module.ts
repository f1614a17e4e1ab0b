import type { ResourceDirectory } from '@masthead/core/resources';
import type { ServiceRuntime } from '@masthead/core/service';
import type { LockPolicy } from '../access/lock-policy.js';
import type { IdentityConfig } from '../config.js';
import type { EntitlementTokens } from '../entitlements/entitlement-tokens.js';
import type { MemberProviderTokens } from '../idp/member-provider-tokens.js';
import type { PasswordHasher } from '../passwords/password-hasher.js';
import type { CodeMailer } from '../recovery/code-mailer.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { CredentialExchange } from '../sessions/credential-exchange.service.js';
import type { SessionService } from '../sessions/session.service.js';
import type { AddressLimiter } from '../throttling/address-limiter.js';
import { InFlightClaims } from '../throttling/in-flight.js';
import type { SignInThrottle } from '../throttling/sign-in-throttle.js';
import type { UserRepository } from '../users/user.repository.js';
import { EmailAvailabilityService } from './email-availability.service.js';
import { RefreshService } from './refresh.service.js';
import { RegistrationService } from './registration.service.js';
import type { SessionStarter } from './session-starter.js';
import { SignInService } from './sign-in.service.js';

export interface SignInModuleDeps {
  runtime: ServiceRuntime;
  config: IdentityConfig;
  users: UserRepository;
  relationships: RelationshipRepository;
  hasher: PasswordHasher;
  resources: ResourceDirectory;
  starter: SessionStarter;
  sessions: SessionService;
  exchange: CredentialExchange;
  throttle: SignInThrottle;
  limiter: AddressLimiter;
  lockPolicy: LockPolicy;
  /** Mails the first confirmation code of a new account. */
  mailer: CodeMailer;
  providerTokens: MemberProviderTokens;
  entitlements: EntitlementTokens;
}

/** The sign-in area: password sign-in, registration, the email check and token refresh. */
export function createSignInModule(deps: SignInModuleDeps) {
  const { runtime, config, users, relationships, hasher, resources, starter, limiter } = deps;
  return {
    signIn: new SignInService({
      users,
      relationships,
      hasher,
      resources,
      starter,
      throttle: deps.throttle,
      // Two: a double-submitted form still signs in; a burst on one account costs two hashes.
      inFlight: new InFlightClaims(2),
      lockPolicy: deps.lockPolicy,
      logger: runtime.logger,
    }),
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
      mailer: deps.mailer,
    }),
    refresh: new RefreshService({
      exchange: deps.exchange,
      sessions: deps.sessions,
      resources,
      relationships,
      providerTokens: deps.providerTokens,
      entitlements: deps.entitlements,
    }),
  };
}
