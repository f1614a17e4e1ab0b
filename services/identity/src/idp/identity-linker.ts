import type { Logger } from '@masthead/core/logging';
import { isDuplicateKey } from '@masthead/core/mongo';
import type { Resource } from '@masthead/proto/accounts';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { RelationshipRecord } from '../relationships/relationship.schema.js';
import { normalizeEmail } from '../signin/sign-in.command.js';
import type { SessionStarter } from '../signin/session-starter.js';
import { EMPTY_PROFILE, type UserRepository, type UserView } from '../users/user.repository.js';
import type { Docstore } from './docstore.js';
import type { IdpLinkRepository } from './idp-link.repository.js';
import type { VerifiedRequest } from './token-verifier.js';
import { idpAccountBeingCreated, idpAuthorizationFail, idpEmailMissing, idpEmailUnverified, idpIdentityTaken } from './idp.errors.js';
import { notResourceMember } from '../access/access.errors.js';

export interface LinkOptions {
  /** False blocks a new resource relationship (the exchange's create-member flag, or an invite). */
  mayJoin: boolean;
  firstName?: string | null;
  lastName?: string | null;
  requestId: string;
}

export interface LinkedMember {
  user: UserView;
  /** False for an identity already linked; true on the registration path (HTTP 201). */
  registered: boolean;
  /** Linked: true. Registration path: whether the email/resource relationship already existed. */
  existed: boolean;
}

interface LinkerDeps {
  links: IdpLinkRepository;
  users: UserRepository;
  relationships: RelationshipRepository;
  starter: SessionStarter;
  docstore: Docstore;
  logger: Logger;
}

const isBlocked = (relationship: RelationshipRecord | null) => relationship !== null && relationship.status !== 'active';

/**
 * The member of a verified provider identity in a resource: the linked user, else the user of
 * the token's email (linked now), else a new user. Shared by POST /idp/oauth/token and POST
 * /idp/registration.
 */
export class IdentityLinker {
  constructor(private readonly deps: LinkerDeps) {}

  async resolve(resource: Resource, verified: VerifiedRequest, options: LinkOptions): Promise<LinkedMember> {
    const { settings, identity } = verified;
    const link = await this.deps.links.findByIdentity(settings.projectId, identity.uid);
    if (link) {
      const user = await this.deps.users.findById(link.user_id);
      if (!user) throw idpAuthorizationFail();
      await this.admit(resource, user, options);
      return { user, registered: false, existed: true };
    }

    const email = normalizeEmail(identity.email ?? '');
    if (!email) throw idpEmailMissing();
    const existing = await this.deps.users.findCredentialsByEmail(email);
    // Linking an existing account needs the provider to vouch for the email: anyone can create
    // a provider identity with an unverified address (account takeover otherwise).
    if (existing && !identity.emailVerified) throw idpEmailUnverified();
    const existed = existing ? (await this.deps.relationships.find(resource.id, existing._id)) !== null : false;
    if (!existed && !options.mayJoin) throw notResourceMember();
    const user = existing ?? (await this.createUser(email, identity.emailVerified, options));
    await this.admit(resource, user, options);
    const stored = await this.deps.links.link(settings.projectId, identity.uid, user._id);
    if (stored.user_id !== user._id) throw idpIdentityTaken();
    await this.createDocument(settings.projectId, identity.uid, user);
    return { user, registered: true, existed };
  }

  /** Active user with an unblocked relationship, joined here when missing and allowed. */
  private async admit(resource: Resource, user: UserView, options: LinkOptions): Promise<void> {
    if (!user.active) throw idpAuthorizationFail();
    const relationship = await this.deps.relationships.find(resource.id, user._id);
    if (isBlocked(relationship)) throw idpAuthorizationFail();
    if (relationship) return;
    if (!options.mayJoin) throw notResourceMember();
    await this.deps.starter.join(resource, user._id, options.requestId);
  }

  private async createUser(email: string, emailVerified: boolean, options: LinkOptions): Promise<UserView> {
    try {
      return await this.deps.users.create({
        ...EMPTY_PROFILE,
        email,
        // Provider members sign in at the provider; no local password until they set one.
        password_hash: null,
        active: true,
        email_confirmed: emailVerified,
        role: 'user',
        first_name: options.firstName ?? null,
        last_name: options.lastName ?? null,
      });
    } catch (error) {
      // Two first exchanges of one email at once: the unique email index keeps one.
      if (isDuplicateKey(error)) throw idpAccountBeingCreated();
      throw error;
    }
  }

  /** The member's docstore record; its failure does not undo a registration (logged, retried on update). */
  private async createDocument(projectId: string, uid: string, user: UserView): Promise<void> {
    try {
      await this.deps.docstore.mergeUser(projectId, uid, { user_id: user._id, email: user.email });
    } catch (error) {
      this.deps.logger.warn({ err: error, userId: user._id }, 'docstore record not created');
    }
  }
}
