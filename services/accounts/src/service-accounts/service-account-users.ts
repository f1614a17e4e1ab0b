import { ServiceError } from '@masthead/core/errors';
import type { ServiceClient } from '@masthead/core/grpc';
import type { IdentityServiceService, ServiceAccountUser, User } from '@masthead/proto/identity';

/** The service-account users of identity, as this domain needs them. */
export interface ServiceAccountUserDirectory {
  /** A new user with the global role service_account. */
  create(resourceId: number, title: string): Promise<User>;
  /** The user with its global role and relationship; null when identity has no such user. */
  get(userId: number, resourceId: number): Promise<ServiceAccountUser | null>;
}

export function identityServiceAccountUsers(identity: ServiceClient<typeof IdentityServiceService>): ServiceAccountUserDirectory {
  return {
    create: (resourceId, title) => identity.createServiceAccountUser({ resourceId, title }),
    async get(userId, resourceId) {
      try {
        return await identity.getServiceAccountUser({ userId, resourceId }, { idempotent: true });
      } catch (error) {
        if (error instanceof ServiceError && error.status === 404) return null;
        throw error;
      }
    },
  };
}
