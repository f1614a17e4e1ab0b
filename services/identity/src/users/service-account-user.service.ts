import { randomBytes } from 'node:crypto';
import { userNotExist } from '@masthead/core/errors';
import type { ServiceAccountUser } from '@masthead/proto/identity';
import { readMember } from '../credentials/member-read.js';
import { toRelationshipStatus } from '../relationships/relationship-status.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { UserRecord } from './user.schema.js';
import { toUserMessage } from './user.projection.js';
import { EMPTY_PROFILE, type UserRepository } from './user.repository.js';
import { serviceAccountUserResourceRequired } from './user.errors.js';

/** Thrown when a user ID names no user. */
export interface ServiceAccountUserServiceDeps {
  users: UserRepository;
  relationships: RelationshipRepository;
}

/**
 * The users service accounts act as (document 2, section I: "attached to an active
 * service-account user"). Called by the accounts service only.
 */
export class ServiceAccountUserService {
  constructor(private readonly deps: ServiceAccountUserServiceDeps) {}

  /**
   * A new user with the global role `service_account`, no password (so sign-in always fails for
   * it) and no relationship. The email is synthetic and unique, under `.invalid` (RFC 2606), so
   * that no mail can ever reach it and no member can register it.
   */
  async create(resourceId: number, title: string): Promise<UserRecord> {
    if (!Number.isSafeInteger(resourceId) || resourceId <= 0) throw serviceAccountUserResourceRequired();
    const name = title.trim().slice(0, 255) || null;
    return this.deps.users.create({
      ...EMPTY_PROFILE,
      email: `service-account-${resourceId}-${randomBytes(6).toString('hex')}@service-accounts.invalid`,
      password_hash: null,
      active: true,
      email_confirmed: false,
      role: 'service_account',
      first_name: name,
    });
  }

  /** The user, its global role and its relationship with the resource; 404 user_not_exist. */
  async get(userId: number, resourceId: number): Promise<ServiceAccountUser> {
    const { user, relationship } = await readMember(this.deps, userId, resourceId);
    if (!user) throw userNotExist();
    return {
      user: toUserMessage(user),
      role: user.role,
      relationship: toRelationshipStatus(relationship),
    };
  }
}
