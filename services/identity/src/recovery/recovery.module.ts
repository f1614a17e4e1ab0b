import type { ServiceRegistration } from '@masthead/core/grpc';
import type { EntitlementTokens } from '../entitlements/entitlement-tokens.js';
import type { ServiceRuntime } from '@masthead/core/service';
import { AccountRecoveryServiceService } from '@masthead/proto/identity/recovery';
import { recoveryHandlers } from '../grpc/recovery.handlers.js';
import type { PasswordHasher } from '../passwords/password-hasher.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { ResourceDirectory } from '@masthead/core/resources';
import type { SessionRepository } from '../sessions/session.repository.js';
import type { SessionService } from '../sessions/session.service.js';
import type { SessionStarter } from '../signin/session-starter.js';
import type { AddressLimiter } from '../throttling/address-limiter.js';
import type { SignInThrottle } from '../throttling/sign-in-throttle.js';
import type { ProfileService } from '../users/profile.service.js';
import type { UserRepository } from '../users/user.repository.js';
import { BackgroundWork } from './background-work.js';
import { CodeMailer } from './code-mailer.js';
import { CodeRequestService } from './code-requests.service.js';
import { EmailChangeService } from './email-change.service.js';
import type { AccessAnnouncer } from '../sessions/access-announcer.js';
import { EmailConfirmationService } from './email-confirmation.service.js';
import { ExternalLoginService } from './external-login.service.js';
import { MemberCodeRepository } from './member-code.repository.js';
import { MemberCodes } from './member-codes.js';
import { PassSignInService, type PassVoucher } from './pass-sign-in.service.js';
import { PasswordResetService } from './password-reset.service.js';
import { RecoveredSession } from './recovered-session.js';
import { RecoveryLimits } from './recovery-limits.js';
import type { RecoveryConfig } from './recovery.config.js';

/** What the recovery area borrows from the rest of identity (wired in app.ts). */
export interface RecoveryDeps {
  runtime: ServiceRuntime;
  config: RecoveryConfig;
  users: UserRepository;
  relationships: RelationshipRepository;
  sessions: SessionService;
  /** Its one-time use claims make codes single use. */
  sessionRepository: SessionRepository;
  hasher: PasswordHasher;
  resources: ResourceDirectory;
  starter: SessionStarter;
  throttle: SignInThrottle;
  limiter: AddressLimiter;
  profiles: ProfileService;
  entitlements: EntitlementTokens;
  access: AccessAnnouncer;
  /** Community's word on pass authorization tokens (docs/adr/0153). */
  passVoucher: PassVoucher;
}

export interface Recovery {
  /** The gRPC service to add to the identity process. */
  service: ServiceRegistration<typeof AccountRecoveryServiceService>;
  /** Sends codes by mail; registration uses it for the first confirmation code. */
  mailer: CodeMailer;
  /** Finishes requests still looking up their email; call before closing connections. */
  drain(): Promise<void>;
}

/** Composition of the recovery area: codes sent to members and external login tokens. */
export async function createRecovery(deps: RecoveryDeps): Promise<Recovery> {
  const { runtime, config, users, relationships } = deps;
  const repository = new MemberCodeRepository(runtime.db);
  await repository.ready();
  const codes = new MemberCodes({ repository, claims: deps.sessionRepository });
  const limits = new RecoveryLimits({ limiter: deps.limiter, config });
  const background = new BackgroundWork(runtime.logger);
  const mailer = new CodeMailer({
    codes,
    events: runtime.events,
    ttlSeconds: {
      email_confirmation: config.EMAIL_CODE_TTL_SECONDS,
      email_change: config.EMAIL_CODE_TTL_SECONDS,
      password_reset: config.RESET_CODE_TTL_SECONDS,
    },
  });
  const recovered = new RecoveredSession({
    relationships,
    starter: deps.starter,
    profiles: deps.profiles,
    entitlements: deps.entitlements,
  });
  const implementation = recoveryHandlers({
    resources: deps.resources,
    codeRequests: new CodeRequestService({ users, relationships, mailer, limits, background }),
    emailConfirmation: new EmailConfirmationService({ users, codes, limits, access: deps.access }),
    passwordReset: new PasswordResetService({
      users,
      relationships,
      hasher: deps.hasher,
      sessions: deps.sessions,
      throttle: deps.throttle,
      codes,
      limits,
      recovered,
    }),
    emailChange: new EmailChangeService({ users, relationships, hasher: deps.hasher, throttle: deps.throttle, mailer, limits }),
    externalLogin: new ExternalLoginService({
      users,
      relationships,
      codes,
      limits,
      recovered,
      maxTtlSeconds: config.EXTERNAL_LOGIN_TTL_SECONDS,
    }),
    passSignIn: new PassSignInService({ users, limits, recovered, voucher: deps.passVoucher }),
  });
  return {
    service: { name: 'masthead.identity.v1.AccountRecoveryService', definition: AccountRecoveryServiceService, implementation },
    mailer,
    drain: () => background.drain(),
  };
}
