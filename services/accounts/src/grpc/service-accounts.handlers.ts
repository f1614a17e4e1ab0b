import type { AsyncImplementation } from '@masthead/core/grpc';
import { RelationshipStatus } from '@masthead/proto/identity';
import {
  ServiceAccountStatus,
  ServiceKeyState,
  type ServiceAccount,
  type ServiceAccountsServiceService,
} from '@masthead/proto/accounts/service_accounts';
import { parseCreateServiceAccount } from '../service-accounts/service-account.command.js';
import { invalidServiceAccountStatus } from '../service-accounts/service-account.errors.js';
import type { ServiceAccountRecord, ServiceAccountState } from '../service-accounts/service-account.schema.js';
import type { ServiceAccountService } from '../service-accounts/service-account.service.js';

const KEY_STATES = {
  unknown: ServiceKeyState.SERVICE_KEY_STATE_UNKNOWN,
  active: ServiceKeyState.SERVICE_KEY_STATE_ACTIVE,
  suspended: ServiceKeyState.SERVICE_KEY_STATE_SUSPENDED,
  revoked: ServiceKeyState.SERVICE_KEY_STATE_REVOKED,
} as const;

/** The account without its key hash: the hash never leaves this service. */
const toServiceAccount = (record: ServiceAccountRecord): ServiceAccount => ({
  id: record._id,
  resourceId: record.resource_id,
  userId: record.user_id,
  title: record.title,
  status:
    record.status === 'active' ? ServiceAccountStatus.SERVICE_ACCOUNT_STATUS_ACTIVE : ServiceAccountStatus.SERVICE_ACCOUNT_STATUS_SUSPENDED,
  fullAccess: record.full_access,
  grants: record.grants ?? [],
  createdAt: record.created_at.toISOString(),
  lastUsedAt: record.last_used_at?.toISOString(),
  revokedAt: record.revoked_at?.toISOString(),
  requestCount: record.request_count ?? 0,
});

function toState(status: ServiceAccountStatus): ServiceAccountState {
  if (status === ServiceAccountStatus.SERVICE_ACCOUNT_STATUS_ACTIVE) return 'active';
  if (status === ServiceAccountStatus.SERVICE_ACCOUNT_STATUS_SUSPENDED) return 'suspended';
  throw invalidServiceAccountStatus();
}

/** Service accounts (document 2, section I): the gateway's key resolution and usage, the operator's management. */
export function serviceAccountsHandlers(serviceAccounts: ServiceAccountService): AsyncImplementation<typeof ServiceAccountsServiceService> {
  return {
    resolveServiceKey: async ({ key }) => {
      const { state, account, user } = await serviceAccounts.resolve(key);
      return {
        state: KEY_STATES[state],
        account: account ? toServiceAccount(account) : undefined,
        user: user?.user,
        userRole: user?.role ?? '',
        relationship: user?.relationship ?? RelationshipStatus.RELATIONSHIP_STATUS_NONE,
      };
    },
    recordServiceAccountUsage: async ({ usages }) => {
      await serviceAccounts.recordUsage(
        usages.map((usage) => ({
          serviceAccountId: usage.serviceAccountId,
          requests: usage.requests,
          lastUsedAt: new Date(usage.lastUsedAt),
        })),
      );
      return {};
    },
    createServiceAccount: async (request) => {
      const { account, key } = await serviceAccounts.create(
        parseCreateServiceAccount({
          resourceId: request.resourceId,
          title: request.title,
          fullAccess: request.fullAccess,
          grants: request.grants,
          userId: request.userId,
        }),
      );
      return { account: toServiceAccount(account), key };
    },
    listServiceAccounts: async ({ resourceId }) => ({
      items: (await serviceAccounts.listForResource(resourceId)).map(toServiceAccount),
    }),
    revokeServiceAccount: async ({ id }) => toServiceAccount(await serviceAccounts.revoke(id)),
    setServiceAccountStatus: async ({ id, status }) => toServiceAccount(await serviceAccounts.setStatus(id, toState(status))),
  };
}
