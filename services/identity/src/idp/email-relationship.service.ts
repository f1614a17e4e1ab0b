import { invalidEmail } from '@masthead/core/errors';
import type { Resource } from '@masthead/proto/accounts';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import { normalizeEmail } from '../signin/sign-in.command.js';
import type { AddressLimiter } from '../throttling/address-limiter.js';
import type { UserRepository } from '../users/user.repository.js';
import type { IdpLinkRepository } from './idp-link.repository.js';
import { requireProviderSettings } from './provider-settings.js';

interface EmailRelationshipDeps {
  users: UserRepository;
  relationships: RelationshipRepository;
  links: IdpLinkRepository;
  limiter: AddressLimiter;
  limitPerHour: number;
}

export interface EmailRelationship {
  resourceMember: boolean;
  idpLinked: boolean;
}

/**
 * GET /idp/check/email (ADR 0051): whether the email is a member of this resource and linked to
 * its provider. It reveals what POST /email-validation already does, and shares that
 * operation's per-address budget (`email_validation`) so the two together are one oracle's worth.
 * Other resources are never disclosed.
 */
export class EmailRelationshipService {
  constructor(private readonly deps: EmailRelationshipDeps) {}

  async check(resource: Resource, rawEmail: string, ip: string): Promise<EmailRelationship> {
    const settings = requireProviderSettings(resource);
    await this.deps.limiter.consume('email_validation', ip, this.deps.limitPerHour);
    const email = normalizeEmail(rawEmail);
    if (!email) throw invalidEmail();
    const user = await this.deps.users.findCredentialsByEmail(email);
    if (!user) return { resourceMember: false, idpLinked: false };
    const [relationship, link] = await Promise.all([
      this.deps.relationships.find(resource.id, user._id),
      this.deps.links.findByUser(settings.projectId, user._id),
    ]);
    return { resourceMember: relationship !== null && relationship.status !== 'removed', idpLinked: link !== null };
  }
}
