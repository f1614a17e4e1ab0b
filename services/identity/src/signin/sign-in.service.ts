import type { Logger } from '@masthead/core/logging';
import type { Resource } from '@masthead/proto/accounts';
import type { LockPolicy } from '../access/lock-policy.js';
import type { PasswordHasher } from '../passwords/password-hasher.js';
import { isMemberRelationship, isSignInBlocked } from '../relationships/relationship-status.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { RelationshipRecord } from '../relationships/relationship.schema.js';
import type { ResourceDirectory } from '@masthead/core/resources';
import type { UserRecord } from '../users/user.schema.js';
import type { InFlightClaims } from '../throttling/in-flight.js';
import type { SignInThrottle } from '../throttling/sign-in-throttle.js';
import { withUserCredentials, type UserRepository, type UserView } from '../users/user.repository.js';
import type { SessionContext, SessionStarter, StartedSession } from './session-starter.js';
import { isAllowedRedirect, type SignInCommand } from './sign-in.command.js';
import { authorizationFail, redirectNotOnHost, signInInProgress } from './sign-in.errors.js';

export type SignInContext = SessionContext;

export interface SignInOutcome extends StartedSession {
  /** Never the credentials: the outcome travels on to the session result. */
  user: UserView;
}

interface SignInDeps {
  users: UserRepository;
  relationships: RelationshipRepository;
  hasher: PasswordHasher;
  resources: ResourceDirectory;
  starter: SessionStarter;
  throttle: SignInThrottle;
  /** Sign-ins of one account evaluated at once (docs/adr/0091). */
  inFlight: InFlightClaims;
  lockPolicy: LockPolicy;
  logger: Logger;
}

export class SignInService {
  constructor(private readonly deps: SignInDeps) {}

  async signIn(command: SignInCommand, context: SignInContext): Promise<SignInOutcome> {
    const resource = command.resourceId ? await this.deps.resources.get(command.resourceId) : null;
    if (command.redirectUri && !isAllowedRedirect(command.redirectUri, resource?.host)) {
      throw redirectNotOnHost();
    }

    // Parallel attempts on one account beyond the claim are refused before any read or hash,
    // known email or not (docs/adr/0091).
    return this.deps.inFlight.run(command.email, signInInProgress, () => this.evaluate(command, resource, context));
  }

  private async evaluate(command: SignInCommand, resource: Resource | null, context: SignInContext): Promise<SignInOutcome> {
    const { users, relationships, hasher } = this.deps;
    // A throttled attempt is refused before any hash (docs/adr/0004); its record and the user are
    // read side by side, and the user read is discarded when the attempt is refused.
    const [hasFailures, stored] = await Promise.all([
      this.deps.throttle.assertAllowed(command.email),
      users.findStoredByEmail(command.email),
    ]);
    const { user, relationship } = stored ? await this.withCredentials(stored, resource) : { user: null, relationship: null };
    // The resource password replaces the global one where it is set (document 1, POST /authorization).
    const storedHash = relationship?.password_hash ?? user?.password_hash ?? null;
    if (!user || !storedHash) {
      // Same reads and work as a wrong password: the relationship read and one verification.
      if (!user && resource) await relationships.find(resource.id, 0);
      await hasher.verifyDummy(command.password);
      await this.deps.throttle.recordFailure(command.email);
      throw authorizationFail();
    }
    const { valid, needsRehash } = await hasher.verify(storedHash, command.password);
    if (!valid) await this.deps.throttle.recordFailure(command.email);
    if (!valid || !user.active || isSignInBlocked(relationship)) throw authorizationFail();
    if (hasFailures) await this.deps.throttle.reset(command.email);
    if (needsRehash) await this.rehash(user, relationship, command.password);

    const member = isMemberRelationship(relationship);
    // The resource's lock policy may lock the relationship now (docs/adr/0070): refused alike.
    if (resource && member && !(await this.deps.lockPolicy.admit(resource, user._id, context))) throw authorizationFail();
    if (resource && !member) await this.deps.starter.join(resource, user._id);
    const started = await this.deps.starter.start(user._id, resource, command, context, 'user_login');
    if (resource) await this.deps.lockPolicy.trimDevices(resource, user._id, context.requestId);
    return { user, ...started };
  }

  /** The stored user's credentials read beside its relationship here, shared by both (docs/adr/0210). */
  private async withCredentials(stored: UserRecord, resource: Resource | null) {
    const credentials = this.deps.users.credentialsOf(stored._id);
    const [read, relationship] = await Promise.all([
      credentials,
      resource ? this.deps.relationships.find(resource.id, stored._id, credentials) : null,
    ]);
    return { user: withUserCredentials(stored, read), relationship };
  }

  /**
   * Stores a hash with the current parameters; a failure here must not fail the sign-in. Only
   * over the hash just verified: a password changed meanwhile (a reset) is never replaced by a
   * hash of the old one (ADR 0204).
   */
  private async rehash(user: UserRecord, relationship: RelationshipRecord | null, password: string): Promise<void> {
    try {
      const fresh = await this.deps.hasher.hash(password);
      if (relationship?.password_hash) {
        await this.deps.relationships.replacePasswordHash(relationship.resource_id, user._id, relationship.password_hash, fresh);
      } else if (user.password_hash) {
        await this.deps.users.replacePasswordHash(user._id, user.password_hash, fresh);
      }
    } catch (error) {
      this.deps.logger.warn({ err: error, user_id: user._id }, 'password rehash skipped');
    }
  }
}
