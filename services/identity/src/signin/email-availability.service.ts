import { invalidEmail } from '@masthead/core/errors';
import { isMemberRelationship } from '../relationships/relationship-status.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { AddressLimiter } from '../throttling/address-limiter.js';
import type { UserRepository } from '../users/user.repository.js';
import { normalizeEmail } from './sign-in.command.js';
import { userExists } from '../users/user.errors.js';

interface AvailabilityDeps {
  limiter: AddressLimiter;
  limitPerHour: number;
  users: UserRepository;
  relationships: RelationshipRepository;
}

/**
 * POST /email-validation: whether an email can register in a resource. The answer is an
 * enumeration oracle by design (the spec asks for it), so it is limited per client address.
 */
export class EmailAvailabilityService {
  constructor(private readonly deps: AvailabilityDeps) {}

  async validate(resourceId: number, rawEmail: string, ip: string): Promise<void> {
    await this.deps.limiter.consume('email_validation', ip, this.deps.limitPerHour);
    const email = normalizeEmail(rawEmail);
    if (!email) throw invalidEmail();
    const user = await this.deps.users.findCredentialsByEmail(email);
    if (user && isMemberRelationship(await this.deps.relationships.find(resourceId, user._id))) {
      throw userExists();
    }
  }
}
