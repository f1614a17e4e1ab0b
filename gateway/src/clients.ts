import type { Interceptor } from '@grpc/grpc-js';
import { createServiceClient, type ServiceClient } from '@masthead/core/grpc';
import { AccountsServiceService } from '@masthead/proto/accounts';
import { AccountRequestServiceService } from '@masthead/proto/accounts/account_requests';
import { BillingServiceService } from '@masthead/proto/billing';
import { AccountRequestPaymentServiceService } from '@masthead/proto/billing/account_request_payments';
import { LegacySourceServiceService } from '@masthead/proto/billing/legacy_sources';
import { PaymentSourceServiceService } from '@masthead/proto/billing/payment_sources';
import { CatalogServiceService } from '@masthead/proto/catalog';
import { CommunityServiceService } from '@masthead/proto/community';
import { InvitationsServiceService } from '@masthead/proto/community/invitations';
import { IdentityServiceService } from '@masthead/proto/identity';
import { IdentityProviderServiceService } from '@masthead/proto/identity/idp';
import { MemberAccessServiceService } from '@masthead/proto/identity/access';
import { ProfileServiceService } from '@masthead/proto/identity/profile';
import { ExtraDataServiceService } from '@masthead/proto/identity/extra_data';
import { SocialIdentityServiceService } from '@masthead/proto/identity/social';
import { AccountRecoveryServiceService } from '@masthead/proto/identity/recovery';
import { IntegrationsServiceService } from '@masthead/proto/integrations';
import type { GatewayConfig } from './config.js';

/** The six services of OPERATIONS.md; each runs as one process. */
export type ServiceName = 'accounts' | 'identity' | 'catalog' | 'billing' | 'community' | 'integrations';

/**
 * One client per gRPC service the gateway calls. A process may serve several gRPC services
 * (identity's are split by area); those extra clients use their process's address.
 */
export interface ServiceClients {
  accounts: ServiceClient<typeof AccountsServiceService>;
  identity: ServiceClient<typeof IdentityServiceService>;
  identityProvider: ServiceClient<typeof IdentityProviderServiceService>;
  /** Codes sent to members and external login (identity process). */
  recovery: ServiceClient<typeof AccountRecoveryServiceService>;
  catalog: ServiceClient<typeof CatalogServiceService>;
  billing: ServiceClient<typeof BillingServiceService>;
  /** Billing: payment customers and saved sources (document 1 D). */
  paymentSources: ServiceClient<typeof PaymentSourceServiceService>;
  /** Billing: legacy customers created from a provider token, confirmed methods (document 1 D). */
  legacySources: ServiceClient<typeof LegacySourceServiceService>;
  /** Billing: POST /account-requests-payment (document 2 J). */
  accountRequestPayments: ServiceClient<typeof AccountRequestPaymentServiceService>;
  /** Accounts: POST /account-requests (document 2 J). */
  accountRequests: ServiceClient<typeof AccountRequestServiceService>;
  community: ServiceClient<typeof CommunityServiceService>;
  /** Community: invitations, team invites and invitation codes (document 2 C, D). */
  invitations: ServiceClient<typeof InvitationsServiceService>;
  integrations: ServiceClient<typeof IntegrationsServiceService>;
  /** Identity: suspension, profile removal (docs/adr/0071). */
  memberAccess: ServiceClient<typeof MemberAccessServiceService>;
  /** Identity's member profile writes (served by the identity process). */
  profile: ServiceClient<typeof ProfileServiceService>;
  extraData: ServiceClient<typeof ExtraDataServiceService>;
  social: ServiceClient<typeof SocialIdentityServiceService>;
}

export function serviceAddressesOf(config: GatewayConfig): Record<ServiceName, string> {
  return {
    accounts: config.ACCOUNTS_ADDR,
    identity: config.IDENTITY_ADDR,
    catalog: config.CATALOG_ADDR,
    billing: config.BILLING_ADDR,
    community: config.COMMUNITY_ADDR,
    integrations: config.INTEGRATIONS_ADDR,
  };
}

/** One long-lived channel per service, reused by every request. */
export function createServiceClients(config: GatewayConfig, interceptors: Interceptor[] = []): ServiceClients {
  const addresses = serviceAddressesOf(config);
  const options = { defaultDeadlineMs: config.GRPC_DEADLINE_MS, interceptors };
  return {
    accounts: createServiceClient(AccountsServiceService, addresses.accounts, options),
    identity: createServiceClient(IdentityServiceService, addresses.identity, options),
    identityProvider: createServiceClient(IdentityProviderServiceService, addresses.identity, options),
    recovery: createServiceClient(AccountRecoveryServiceService, addresses.identity, options),
    catalog: createServiceClient(CatalogServiceService, addresses.catalog, options),
    billing: createServiceClient(BillingServiceService, addresses.billing, options),
    paymentSources: createServiceClient(PaymentSourceServiceService, addresses.billing, options),
    legacySources: createServiceClient(LegacySourceServiceService, addresses.billing, options),
    accountRequestPayments: createServiceClient(AccountRequestPaymentServiceService, addresses.billing, options),
    accountRequests: createServiceClient(AccountRequestServiceService, addresses.accounts, options),
    community: createServiceClient(CommunityServiceService, addresses.community, options),
    invitations: createServiceClient(InvitationsServiceService, addresses.community, options),
    integrations: createServiceClient(IntegrationsServiceService, addresses.integrations, options),
    memberAccess: createServiceClient(MemberAccessServiceService, addresses.identity, options),
    profile: createServiceClient(ProfileServiceService, addresses.identity, options),
    extraData: createServiceClient(ExtraDataServiceService, addresses.identity, options),
    social: createServiceClient(SocialIdentityServiceService, addresses.identity, options),
  };
}
