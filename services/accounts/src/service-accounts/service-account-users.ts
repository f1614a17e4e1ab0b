import { ServiceError } from '@masthead/core/errors';
import type { ServiceClient } from '@masthead/core/grpc';
import type { IdentityServiceService, ServiceAccountUser, User } from '@masthead/proto/identity';

/** The service-account users of identity, as this domain needs them. */
export interface ServiceAccountUserDirectory {
  /** A new user with the global role service_account. */
  create(resourceId: number, title: string, requestId: string): Promise<User>;
  /** The user with its global role and relationship; null when identity has no such user. */
  get(userId: number, resourceId: number, requestId: string): Promise<ServiceAccountUser | null>;
}

export function identityServiceAccountUsers(identity: ServiceClient<typeof IdentityServiceService>): ServiceAccountUserDirectory {
  return {
    create: (resourceId, title, requestId) => identity.createServiceAccountUser({ resourceId, title }, { requestId }),
    async get(userId, resourceId, requestId) {
      try {
        return await identity.getServiceAccountUser({ userId, resourceId }, { requestId, idempotent: true });
      } catch (error) {
        if (error instanceof ServiceError && error.status === 404) return null;
        throw error;
      }
    },
  };
}
