import { loadConfig, serviceAddresses } from '@masthead/core/config';
import { createServiceClient, type ServiceClient } from '@masthead/core/grpc';
import { AccountsServiceService } from '@masthead/proto/accounts';
import { CardProviderConnectionServiceService } from '@masthead/proto/billing/connection';
import { CatalogServiceService } from '@masthead/proto/catalog';
import { InvitationsServiceService } from '@masthead/proto/community/invitations';
import { IdentityServiceService } from '@masthead/proto/identity';
import { MemberAccessServiceService } from '@masthead/proto/identity/access';
import { AccountRecoveryServiceService } from '@masthead/proto/identity/recovery';

export interface AdminClients {
  accounts: ServiceClient<typeof AccountsServiceService>;
  identity: ServiceClient<typeof IdentityServiceService>;
  catalog: ServiceClient<typeof CatalogServiceService>;
  memberAccess: ServiceClient<typeof MemberAccessServiceService>;
  recovery: ServiceClient<typeof AccountRecoveryServiceService>;
  /** Billing's card-provider connections (secret keys go in, never out). */
  connections: ServiceClient<typeof CardProviderConnectionServiceService>;
  /** Community's invitation codes. */
  invitations: ServiceClient<typeof InvitationsServiceService>;
  close(): void;
}

/** Clients of the internal APIs, addressed by the same variables the services use. */
export function adminClients(env: NodeJS.ProcessEnv = process.env): AdminClients {
  const config = loadConfig(
    {
      ACCOUNTS_ADDR: serviceAddresses.ACCOUNTS_ADDR,
      IDENTITY_ADDR: serviceAddresses.IDENTITY_ADDR,
      CATALOG_ADDR: serviceAddresses.CATALOG_ADDR,
      BILLING_ADDR: serviceAddresses.BILLING_ADDR,
      COMMUNITY_ADDR: serviceAddresses.COMMUNITY_ADDR,
    },
    env,
  );
  const options = { defaultDeadlineMs: 30_000 };
  const clients = {
    accounts: createServiceClient(AccountsServiceService, config.ACCOUNTS_ADDR, options),
    identity: createServiceClient(IdentityServiceService, config.IDENTITY_ADDR, options),
    catalog: createServiceClient(CatalogServiceService, config.CATALOG_ADDR, options),
    memberAccess: createServiceClient(MemberAccessServiceService, config.IDENTITY_ADDR, options),
    recovery: createServiceClient(AccountRecoveryServiceService, config.IDENTITY_ADDR, options),
    connections: createServiceClient(CardProviderConnectionServiceService, config.BILLING_ADDR, options),
    invitations: createServiceClient(InvitationsServiceService, config.COMMUNITY_ADDR, options),
  };
  return { ...clients, close: () => Object.values(clients).forEach((client) => client.close()) };
}
