import { isDuplicateKey } from '@masthead/core/mongo';
import { fieldError, invalidEmail } from '@masthead/core/errors';
import type { Resource } from '@masthead/proto/accounts';
import type { PasswordHasher } from '../passwords/password-hasher.js';
import type { CodeMailer } from '../recovery/code-mailer.js';
import type { AddressLimiter } from '../throttling/address-limiter.js';
import type { InFlightClaims } from '../throttling/in-flight.js';
import { assertAcceptablePassword } from '../passwords/password-policy.js';
import { textProblem } from '../profile/text-rules.js';
import { isMemberRelationship } from '../relationships/relationship-status.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { UserRecord } from '../users/user.schema.js';
import { EMPTY_PROFILE, type UserRepository } from '../users/user.repository.js';
import type { SessionContext, SessionStarter } from './session-starter.js';
import type { SignInOutcome } from './sign-in.service.js';
import { normalizeEmail } from './sign-in.command.js';
import { registrationInProgress } from './sign-in.errors.js';
import { passwordRequired } from '../passwords/password.errors.js';
import { userExists } from '../users/user.errors.js';

export interface RegisterCommand {
  email: string;
  password: string;
  firstName: string | null;
  lastName: string | null;
}

interface RegistrationDeps {
  limiter: AddressLimiter;
  limitPerHour: number;
  users: UserRepository;
  relationships: RelationshipRepository;
  hasher: PasswordHasher;
  starter: SessionStarter;
  /** Registrations of one email at once: one (docs/adr/0091). */
  inFlight: InFlightClaims;
  /** Mails the first email confirmation code of a new account (docs/adr/0055). */
  mailer?: CodeMailer;
}

/** Profile text fields are short labels; 255 keeps a request from storing a novel. */
const MAX_NAME_LENGTH = 255;

/** Why a name given at registration cannot be stored (the one-line rule of PUT /user), or null. */
const nameProblem = (name: string | null): string | null =>
  !name ? null : (textProblem(name) ?? (name.length > MAX_NAME_LENGTH ? `at most ${MAX_NAME_LENGTH} characters` : null));

function assertNames(command: RegisterCommand): void {
  const problems: Record<string, string> = {};
  const first = nameProblem(command.firstName);
  const last = nameProblem(command.lastName);
  if (first) problems['first_name'] = first;
  if (last) problems['last_name'] = last;
  if (Object.keys(problems).length > 0) throw fieldError(problems);
}

const TOKEN_DELIVERY = { responseType: 'token', redirectUri: null } as const;

/**
 * POST /registration. A new email creates the user, joins the resource (default membership) and
 * signs in (`user_signup`). An existing account joins this resource only when the password is
 * its own; otherwise, or when already a member here, 409 user_exists. The spec exposes email
 * availability anyway (POST /email-validation), so this adds no enumeration.
 */
export class RegistrationService {
  constructor(private readonly deps: RegistrationDeps) {}

  async register(command: RegisterCommand, resource: Resource, context: SessionContext): Promise<SignInOutcome> {
    const email = normalizeEmail(command.email);
    // Only one registration of an email can win: the parallel rest are refused before they count
    // against the address, read or hash anything (docs/adr/0091).
    if (!email) return this.registerEmail(command, null, resource, context);
    return this.deps.inFlight.run(email, registrationInProgress, () => this.registerEmail(command, email, resource, context));
  }

  private async registerEmail(
    command: RegisterCommand,
    email: string | null,
    resource: Resource,
    context: SessionContext,
  ): Promise<SignInOutcome> {
    await this.deps.limiter.consume('registration', context.ip ?? '', this.deps.limitPerHour);
    if (!email) throw invalidEmail();
    if (!command.password) throw passwordRequired();
    assertAcceptablePassword(command.password);
    assertNames(command);

    const existing = await this.deps.users.findCredentialsByEmail(email);
    const user = existing ? await this.joinExisting(existing, resource, command.password) : await this.create(email, command);
    // The relationship's natural key decides a race between registrations of one email.
    if (!(await this.deps.starter.join(resource, user._id, context.requestId, 'registration'))) throw userExists();
    const started = await this.deps.starter.start(user._id, resource, TOKEN_DELIVERY, context, existing ? 'user_login' : 'user_signup');
    if (!existing) await this.deps.mailer?.send('email_confirmation', { userId: user._id, resourceId: resource.id, email: user.email });
    return { user, ...started };
  }

  private async joinExisting(user: UserRecord, resource: Resource, password: string): Promise<UserRecord> {
    if (isMemberRelationship(await this.deps.relationships.find(resource.id, user._id))) throw userExists();
    const valid = user.password_hash ? (await this.deps.hasher.verify(user.password_hash, password)).valid : false;
    if (!valid || !user.active) throw userExists();
    return user;
  }

  private async create(email: string, command: RegisterCommand): Promise<UserRecord> {
    const passwordHash = await this.deps.hasher.hash(command.password);
    try {
      return await this.deps.users.create({
        ...EMPTY_PROFILE,
        email,
        password_hash: passwordHash,
        active: true,
        email_confirmed: false,
        role: 'user',
        first_name: command.firstName,
        last_name: command.lastName,
      });
    } catch (error) {
      // Two registrations of one email at once: the unique index keeps one.
      if (isDuplicateKey(error)) throw userExists();
      throw error;
    }
  }
}
