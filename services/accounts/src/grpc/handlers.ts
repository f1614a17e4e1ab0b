import type { AsyncImplementation } from '@masthead/core/grpc';
import {
  ServiceAccountStatus,
  ServiceKeyState,
  type AccountsServiceService,
  type Resource,
  type ServiceAccount,
} from '@masthead/proto/accounts';
import { RelationshipStatus } from '@masthead/proto/identity';
import { partnerTitleRequired } from '../partners/partner.errors.js';
import type { PartnerRepository } from '../partners/partner.repository.js';
import type { ResourceRecord } from '../resources/resource.schema.js';
import type { ResourceService } from '../resources/resource.service.js';
import { parseCreateServiceAccount } from '../service-accounts/service-account.command.js';
import { invalidServiceAccountStatus } from '../service-accounts/service-account.errors.js';
import type { ServiceAccountRecord, ServiceAccountState } from '../service-accounts/service-account.schema.js';
import type { ServiceAccountService } from '../service-accounts/service-account.service.js';
import { localizationHandlers, type LocalizationDeps } from './localization.handlers.js';

interface Deps {
  resources: ResourceService;
  partners: PartnerRepository;
  serviceAccounts: ServiceAccountService;
  localization: LocalizationDeps;
}

const toResource = (record: ResourceRecord): Resource => ({
  id: record._id,
  publicKey: record.public_key,
  title: record.title,
  host: record.host ?? undefined,
  origin: record.origin ?? undefined,
  partnerId: record.partner_id,
  active: record.active,
  settings: record.settings ?? {},
  allowedOrigins: record.allowed_origins ?? [],
});

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

export function accountsHandlers({
  resources,
  partners,
  serviceAccounts,
  localization,
}: Deps): AsyncImplementation<typeof AccountsServiceService> {
  return {
    ...localizationHandlers(localization),
    resolveResource: async ({ publicKey }) => toResource(await resources.resolve(publicKey)),
    getResource: async ({ id }) => toResource(await resources.get(id)),
    getResourceConfig: async ({ id }) => {
      const view = await resources.config(id);
      return {
        publicKey: view.publicKey,
        origin: view.origin ?? undefined,
        paymentsInLiveMode: view.paymentsInLiveMode,
        webAppConfig: view.webAppConfig ?? undefined,
        defaultPaymentSystem: view.defaultPaymentSystem,
        cardproviderPublicKey: view.cardproviderPublicKey ?? undefined,
        appId: view.appId,
        locationId: view.locationId,
      };
    },
    listAllowedOrigins: async () => ({ origins: await resources.allowedOrigins() }),
    listPartnerResources: async ({ partnerId }) => ({ items: (await resources.listOfPartner(partnerId)).map(toResource) }),
    createPartner: async ({ title }) => {
      if (!title.trim()) throw partnerTitleRequired();
      const partner = (await partners.findByTitle(title.trim())) ?? (await partners.create(title.trim()));
      return { id: partner._id, title: partner.title, active: partner.active };
    },
    upsertResource: async (request) =>
      toResource(
        await resources.upsert({
          publicKey: request.publicKey,
          title: request.title,
          host: request.host ?? null,
          origin: request.origin ?? null,
          partnerId: request.partnerId,
          settings: request.settings ?? {},
          allowedOrigins: request.allowedOrigins,
        }),
      ),

    resolveServiceKey: async ({ key }, { requestId }) => {
      const { state, account, user } = await serviceAccounts.resolve(key, requestId);
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
    createServiceAccount: async (request, { requestId }) => {
      const { account, key } = await serviceAccounts.create(
        parseCreateServiceAccount({
          resourceId: request.resourceId,
          title: request.title,
          fullAccess: request.fullAccess,
          grants: request.grants,
          userId: request.userId,
        }),
        requestId,
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
