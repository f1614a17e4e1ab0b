import { AccountsServiceService } from '@masthead/proto/accounts';
import { AccountRequestServiceService } from '@masthead/proto/accounts/account_requests';
import { LocalizationServiceService } from '@masthead/proto/accounts/localization';
import { ServiceAccountsServiceService } from '@masthead/proto/accounts/service_accounts';
import { BillingServiceService } from '@masthead/proto/billing';
import { AccountRequestPaymentServiceService } from '@masthead/proto/billing/account_request_payments';
import { CardProviderConnectServiceService } from '@masthead/proto/billing/connect';
import { CardProviderConnectionServiceService } from '@masthead/proto/billing/connection';
import { LegacySourceServiceService } from '@masthead/proto/billing/legacy_sources';
import { CheckoutServiceService } from '@masthead/proto/billing/checkout';
import { ExternalPurchaseServiceService } from '@masthead/proto/billing/external';
import { PaymentSourceServiceService } from '@masthead/proto/billing/payment_sources';
import { PromoCodeServiceService } from '@masthead/proto/billing/promos';
import { OwedRefundServiceService } from '@masthead/proto/billing/refunds';
import { RenewalServiceService } from '@masthead/proto/billing/renewals';
import { WebhookServiceService } from '@masthead/proto/billing/webhooks';
import { TransactionServiceService } from '@masthead/proto/billing/transactions';
import { MemberViewsServiceService } from '@masthead/proto/catalog/member_views';
import { MembershipsServiceService } from '@masthead/proto/catalog/memberships';
import { PlansServiceService } from '@masthead/proto/catalog/plans';
import { PricingsServiceService } from '@masthead/proto/catalog/pricings';
import { CommunityServiceService } from '@masthead/proto/community';
import { InvitationsServiceService } from '@masthead/proto/community/invitations';
import { PassesServiceService } from '@masthead/proto/community/passes';
import { SponsorshipsServiceService } from '@masthead/proto/community/sponsorships';
import { TeamsServiceService } from '@masthead/proto/community/teams';
import { TicketSalesServiceService } from '@masthead/proto/community/ticket_sales';
import { TiEventsServiceService } from '@masthead/proto/community/ti_events';
import { IdentityServiceService } from '@masthead/proto/identity';
import { MemberAccessServiceService } from '@masthead/proto/identity/access';
import { EntitlementsServiceService } from '@masthead/proto/identity/entitlements';
import { ExtraDataServiceService } from '@masthead/proto/identity/extra_data';
import { IdentityProviderServiceService } from '@masthead/proto/identity/idp';
import { ProfileServiceService } from '@masthead/proto/identity/profile';
import { AccountRecoveryServiceService } from '@masthead/proto/identity/recovery';
import { SocialIdentityServiceService } from '@masthead/proto/identity/social';
import { IntegrationsServiceService } from '@masthead/proto/integrations';
import { AudienceServiceService } from '@masthead/proto/integrations/audience';
import { CrmServiceService } from '@masthead/proto/integrations/crm';
import { ListManagerServiceService } from '@masthead/proto/integrations/listmgr';
import { ProviderConfigServiceService } from '@masthead/proto/integrations/provider_config';
import { CaptchaServiceService } from '@masthead/proto/integrations/captcha';
import { PublicEventsServiceService } from '@masthead/proto/integrations/public_events';
import { ResourceSettingsServiceService } from '@masthead/proto/integrations/resource_settings';
import { TemplatesServiceService } from '@masthead/proto/integrations/templates';
import { WebhooksServiceService } from '@masthead/proto/integrations/webhooks';
import { createServiceClient, type ClientOptions, type ServiceClient, type UnaryServiceDefinition } from '../grpc/index.js';

/** The six processes of OPERATIONS.md; each serves one or more gRPC services. */
export type ProcessName = 'accounts' | 'identity' | 'catalog' | 'billing' | 'community' | 'integrations';

/**
 * Every gRPC service a caller may use, by client name, with the process that serves it (ADR 0097):
 * the gateway, the admin CLI and the services build their clients from this one table, so a
 * service moved to another process or split by area changes here only.
 */
export const SERVICE_CLIENTS = {
  /** Partners and resources. */
  accounts: { definition: AccountsServiceService, process: 'accounts' },
  /** Service-account keys for the gateway; account management for operators (document 2 I). */
  serviceAccounts: { definition: ServiceAccountsServiceService, process: 'accounts' },
  /** Countries, geo info, currencies, languages (document 2 B). */
  localization: { definition: LocalizationServiceService, process: 'accounts' },
  /** POST /account-requests (document 2 J). */
  accountRequests: { definition: AccountRequestServiceService, process: 'accounts' },
  identity: { definition: IdentityServiceService, process: 'identity' },
  identityProvider: { definition: IdentityProviderServiceService, process: 'identity' },
  /** Codes sent to members and external login. */
  recovery: { definition: AccountRecoveryServiceService, process: 'identity' },
  /** Suspension, profile removal, restore (ADR 0071). */
  memberAccess: { definition: MemberAccessServiceService, process: 'identity' },
  profile: { definition: ProfileServiceService, process: 'identity' },
  extraData: { definition: ExtraDataServiceService, process: 'identity' },
  social: { definition: SocialIdentityServiceService, process: 'identity' },
  /** Entitlement tokens, the published key set, revocation lists, signing-key rotation (ADR 0246–0248). */
  entitlements: { definition: EntitlementsServiceService, process: 'identity' },
  /** Plans: public reads, operator writes (document 1 E). */
  plans: { definition: PlansServiceService, process: 'catalog' },
  /** Pricings: public reads, the external-source lookup, operator writes. */
  pricings: { definition: PricingsServiceService, process: 'catalog' },
  /** A member's memberships in one resource (document 1 F). */
  memberships: { definition: MembershipsServiceService, process: 'catalog' },
  /** Plans joined with a member's memberships: user plans, team plans, eligibility, by resource. */
  memberViews: { definition: MemberViewsServiceService, process: 'catalog' },
  billing: { definition: BillingServiceService, process: 'billing' },
  /** Payment customers and saved sources (document 1 D). */
  paymentSources: { definition: PaymentSourceServiceService, process: 'billing' },
  /** Legacy customers, cards and confirmed methods (document 1 D). */
  legacySources: { definition: LegacySourceServiceService, process: 'billing' },
  /** POST /account-requests-payment (document 2 J). */
  accountRequestPayments: { definition: AccountRequestPaymentServiceService, process: 'billing' },
  /** Card-provider secret keys: in, never out (ADR 0120). Operators only. */
  connections: { definition: CardProviderConnectionServiceService, process: 'billing' },
  /** Integration-admin connect OAuth of the card provider (ADR 0126). */
  cardProviderConnect: { definition: CardProviderConnectServiceService, process: 'billing' },
  /** Checkout: quotes, promo validation, payments (ADR 0142). */
  checkout: { definition: CheckoutServiceService, process: 'billing' },
  /** A member's transactions, invoices and receipts (document 2 G). */
  transactions: { definition: TransactionServiceService, process: 'billing' },
  /** External store purchases recorded by service accounts (document 2 I; ADR 0146). */
  externalPurchases: { definition: ExternalPurchaseServiceService, process: 'billing' },
  /** Renewal passes of paid memberships; operators and tests (ADR 0145). */
  renewals: { definition: RenewalServiceService, process: 'billing' },
  /** The card provider's webhook events (ADR 0147). */
  cardProviderWebhooks: { definition: WebhookServiceService, process: 'billing' },
  /** Promo codes; operators only (ADR 0144). */
  promoCodes: { definition: PromoCodeServiceService, process: 'billing' },
  /** Refunds billing owes and has not made yet; operators only (ADR 0221). */
  owedRefunds: { definition: OwedRefundServiceService, process: 'billing' },
  community: { definition: CommunityServiceService, process: 'community' },
  /** Teams and their members (document 2 C). */
  teams: { definition: TeamsServiceService, process: 'community' },
  /** Team invites, invitation codes, validation and activation (document 2 C, D). */
  invitations: { definition: InvitationsServiceService, process: 'community' },
  /** Events, tickets and a member's passes grouped by them (document 2 F). */
  tiEvents: { definition: TiEventsServiceService, process: 'community' },
  /** What owners and attendees do with passes; the pass-token redemption (document 2 F). */
  passes: { definition: PassesServiceService, process: 'community' },
  /** The ticket inventory behind checkout: reserve, confirm, release (ADR 0151). */
  ticketSales: { definition: TicketSalesServiceService, process: 'community' },
  /** Sponsorships, slots and recipients; gift creation and renewal payer for billing (document 2 E). */
  sponsorships: { definition: SponsorshipsServiceService, process: 'community' },
  integrations: { definition: IntegrationsServiceService, process: 'integrations' },
  /** The email-list provider `audience` (document 2 H; ADR 0160). */
  audience: { definition: AudienceServiceService, process: 'integrations' },
  /** The CRM provider `crm`: stored tags and a member's contact tags (document 2 H). */
  crm: { definition: CrmServiceService, process: 'integrations' },
  /** The email-list provider `listmgr`: stored lists and a member's list states (document 2 H). */
  listmgr: { definition: ListManagerServiceService, process: 'integrations' },
  /** Provider settings and sealed secrets per resource: in, never out (ADR 0164). Operators only. */
  providerConfig: { definition: ProviderConfigServiceService, process: 'integrations' },
  /** Published templates for embeds (document 2 K). */
  templates: { definition: TemplatesServiceService, process: 'integrations' },
  /** Inherited resource settings for embeds (document 2 K). */
  resourceSettings: { definition: ResourceSettingsServiceService, process: 'integrations' },
  /** Challenge-service keys: the public one out, the secret never (document 2 K). */
  captcha: { definition: CaptchaServiceService, process: 'integrations' },
  /** POST /user/event and the public event names (document 2 L). */
  publicEvents: { definition: PublicEventsServiceService, process: 'integrations' },
  /** Signed outbound webhook endpoints and their delivery log. Operators only. */
  webhooks: { definition: WebhooksServiceService, process: 'integrations' },
} as const satisfies Record<string, { definition: UnaryServiceDefinition; process: ProcessName }>;

export type ClientName = keyof typeof SERVICE_CLIENTS;
export type ClientOf<N extends ClientName> = ServiceClient<(typeof SERVICE_CLIENTS)[N]['definition']>;
export type Clients<N extends ClientName> = { [K in N]: ClientOf<K> };
/** The addresses of the processes serving the named clients, and only those. */
export type AddressesFor<N extends ClientName> = Readonly<Record<(typeof SERVICE_CLIENTS)[N]['process'], string>>;

/** One client of the table, on its process's address (one long-lived channel per client). */
export function createClient<N extends ClientName>(name: N, addresses: AddressesFor<N>, options: ClientOptions): ClientOf<N> {
  const { definition, process } = SERVICE_CLIENTS[name];
  return createServiceClient(definition, (addresses as Record<ProcessName, string>)[process], options) as ClientOf<N>;
}

/** The named clients of the table, with one `close` for them all. */
export function createClients<N extends ClientName>(
  names: readonly N[],
  addresses: AddressesFor<N>,
  options: ClientOptions,
): Clients<N> & { close(): void } {
  const clients = Object.fromEntries(names.map((name) => [name, createClient(name, addresses, options)])) as Clients<N>;
  return { ...clients, close: () => names.forEach((name) => (clients[name] as { close(): void }).close()) };
}

/** Every client name, for a caller that uses them all (the gateway). */
export const ALL_CLIENTS = Object.keys(SERVICE_CLIENTS) as ClientName[];

/** The process addresses from the services' shared `*_ADDR` settings (core/config `serviceAddresses`). */
export const processAddresses = (config: {
  ACCOUNTS_ADDR: string;
  IDENTITY_ADDR: string;
  CATALOG_ADDR: string;
  BILLING_ADDR: string;
  COMMUNITY_ADDR: string;
  INTEGRATIONS_ADDR: string;
}): Record<ProcessName, string> => ({
  accounts: config.ACCOUNTS_ADDR,
  identity: config.IDENTITY_ADDR,
  catalog: config.CATALOG_ADDR,
  billing: config.BILLING_ADDR,
  community: config.COMMUNITY_ADDR,
  integrations: config.INTEGRATIONS_ADDR,
});
