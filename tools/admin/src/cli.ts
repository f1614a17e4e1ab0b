#!/usr/bin/env node
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ServiceAccountStatus, type ServiceAccount } from '@masthead/proto/accounts/service_accounts';
import type { ConnectionSummary } from '@masthead/proto/billing/connection';
import type { Invitation } from '@masthead/proto/community/teams';
import { relationshipStatusToJSON, type RelationshipStatus } from '@masthead/proto/identity';
import { adminClients, type AdminClients } from './clients.js';
import { integer, list, optional, readStdin, text, UsageError, type Values } from './args.js';
import { loadFixture, parseFixture } from './fixture.js';
import {
  PLATFORM_COMMANDS,
  PLATFORM_FLAG_OPTIONS,
  PLATFORM_MULTIPLE_OPTIONS,
  PLATFORM_STRING_OPTIONS,
  PLATFORM_USAGE,
} from './platform-commands.js';
import {
  PROVIDER_FLAG_OPTIONS,
  PROVIDER_MULTIPLE_OPTIONS,
  PROVIDER_STRING_OPTIONS,
  PROVIDER_USAGE,
  providerCommands,
} from './provider-commands.js';
import { PROMO_COMMANDS, PROMO_FLAG_OPTIONS, PROMO_MULTIPLE_OPTIONS, PROMO_STRING_OPTIONS, PROMO_USAGE } from './promo-commands.js';
import { REFUND_COMMANDS, REFUND_STRING_OPTIONS, REFUND_USAGE } from './refund-commands.js';
import { SIGNING_KEY_COMMANDS, SIGNING_KEY_USAGE } from './signing-key-commands.js';

const USAGE = `masthead-admin <command> [options]

Talks to the services' internal gRPC APIs (addresses from ACCOUNTS_ADDR, IDENTITY_ADDR, CATALOG_ADDR, BILLING_ADDR,
COMMUNITY_ADDR, INTEGRATIONS_ADDR).

Commands:
  load-fixture <file> [--force]         create or update partners, resources, plans, pricings and
                                        members from a JSON fixture (idempotent); a fixture marked
                                        development_only is refused when MASTHEAD_ENV=production
                                        unless --force is given
  create-partner --title T
  create-resource --partner-id N --public-key K --title T [--host H] [--origin O]
  create-plan --resource-id N --slug S --title T [--private] [--inactive] [--full-access]
              [--can-own-teams] [--parent-plan-id N]
  create-pricing --plan-id N --title T --price MINOR_UNITS --currency EUR --period "1 month" [--private] [--type standard|gift|team|event_pass]
                 [--users-limit N]
  create-member --resource-id N --email E --password P [--role user|admin|partner|root]
  create-service-account --resource-id N --title T [--full-access] [--grant "GET /integrations/external/subscription" ...]
                                        [--user-id N]; prints the key, once: it is stored only as a hash
  list-service-accounts --resource-id N (never prints keys or hashes)
  revoke-service-account --id N         the key stops working for good
  suspend-service-account --id N        the key answers 401 until resumed
  resume-service-account --id N
  restore-member-access --resource-id N (--user-id N | --email E)
                                        lifts a lock (lock policy) or a suspension of the member
                                        in that resource; other resources are untouched
  issue-login-token --resource-id N --email E [--ttl-seconds S]
                                        a single-use login token for a member (GET /auth/external/{token});
                                        shown once, stored only as a hash, valid EXTERNAL_LOGIN_TTL_SECONDS at most
  set-cardprovider-key --resource-id N --mode test|live
                                        reads the provider secret key from standard input (never
                                        from the command line: it would show in ps and shell
                                        history); billing stores it sealed (BILLING_SECRETS_KEYS).
                                        --resource-id 0 is the deployment's own key
                                        (POST /account-requests-payment)
  show-cardprovider-key --resource-id N --mode test|live
                                        whether a key is stored, its last four characters and
                                        the encryption key ID, the connect client ID and the
                                        connected account; never the key
  set-cardprovider-client-id --resource-id N --mode test|live --client-id ca_…
                                        the platform's connect client ID of the resource in that
                                        mode (GET/POST/DELETE /admin/integrations/cardprovider/connect,
                                        docs/adr/0126); the mode's secret key must be stored first
  create-invitation-code --resource-id N --pricing-id N [--code C] [--activations-limit N]
                         [--start-date ISO] [--end-date ISO] [--email E] [--title T] [--description D]
                                        a free invitation code for a free Pricing of the resource
                                        (POST /invite-activation grants it); without --code a random
                                        40-character code; --activations-limit 0 or absent: no cap;
                                        --email binds the code to that member's email
  create-ti-event --resource-id N --title T [--description D] [--photo URL ...] [--start-date ISO]
                  [--end-date ISO] [--inactive]
                                        creates or updates (by title in the resource) a ticketed
                                        event; the resource needs the setting ti_events_system
  create-ti-ticket --ti-event-id N --title T --quantity N --price MINOR_UNITS --currency USD
                   [--description D] [--private] [--inactive] [--unassign-limit N]
                                        creates or updates (by title in the event) a ticket;
                                        --unassign-limit: how often an owner may take a pass back
                                        (default 1)
  create-sponsorship --resource-id N --sponsor-id N --pricing-id N [--slots N] [--seats-per-slot N]
                     [--title T] [--description D] [--purchase-key K] [--not-paying-by-sponsor]
                     [--no-autorenew]
                                        a sponsorship (gift) with its slots, as checkout creates
                                        one for a purchase; --purchase-key makes a repeat answer
                                        the first (default: a new key)
${PROMO_USAGE}${REFUND_USAGE}${SIGNING_KEY_USAGE}${PLATFORM_USAGE}${PROVIDER_USAGE}`;

/** A service account as the operator sees it: no key, no hash. */
const showServiceAccount = (account: ServiceAccount | undefined) =>
  account && {
    id: account.id,
    resource_id: account.resourceId,
    user_id: account.userId,
    title: account.title,
    status: account.status === ServiceAccountStatus.SERVICE_ACCOUNT_STATUS_SUSPENDED ? 'suspended' : 'active',
    full_access: account.fullAccess,
    grants: account.grants,
    created_at: account.createdAt,
    last_used_at: account.lastUsedAt ?? null,
    revoked_at: account.revokedAt ?? null,
    request_count: account.requestCount,
  };

/** A card-provider connection as the operator sees it: never the key (docs/adr/0120). */
const showConnection = (connection: ConnectionSummary) => ({
  resource_id: connection.resourceId,
  mode: connection.mode,
  has_secret_key: connection.hasSecretKey,
  secret_key_last4: connection.secretKeyLast4,
  key_id: connection.keyId,
  updated_at: connection.updatedAt || null,
  client_id: connection.clientId || null,
  connected_account_id: connection.connectedAccountId || null,
});

/** An invitation code as operators read it (the invite record's field names). */
const showInvitation = (invite: Invitation) => ({
  id: invite.id,
  code: invite.code,
  email: invite.email ?? null,
  title: invite.title,
  description: invite.description,
  subscription_id: invite.pricingId ?? null,
  activations_limit: invite.activationsLimit,
  start_date: invite.startDate ?? null,
  end_date: invite.endDate ?? null,
  created_at: invite.createdAt,
});

/** `RELATIONSHIP_STATUS_LOCKED` → `locked`. */
const relationshipLabel = (status: RelationshipStatus): string =>
  relationshipStatusToJSON(status).replace('RELATIONSHIP_STATUS_', '').toLowerCase();

const COMMANDS: Record<string, (clients: AdminClients, values: Values, positionals: string[]) => Promise<unknown>> = {
  ...PLATFORM_COMMANDS,
  ...PROMO_COMMANDS,
  ...REFUND_COMMANDS,
  ...SIGNING_KEY_COMMANDS,
  'load-fixture': async (clients, values, [file]) => {
    if (!file) throw new UsageError('load-fixture needs a file');
    const fixture = parseFixture(JSON.parse(await readFile(file, 'utf8')));
    if (fixture.development_only && process.env['MASTHEAD_ENV'] === 'production' && values['force'] !== true) {
      throw new UsageError(`${file} is marked development_only; refusing to load it in production (use --force to override)`);
    }
    return loadFixture(clients, fixture);
  },
  'create-partner': (clients, values) => clients.accounts.createPartner({ title: text(values, 'title') }),
  'create-resource': (clients, values) =>
    clients.accounts.upsertResource({
      partnerId: integer(values, 'partner-id'),
      publicKey: text(values, 'public-key'),
      title: text(values, 'title'),
      host: optional(values, 'host'),
      origin: optional(values, 'origin'),
      settings: {},
      allowedOrigins: [],
    }),
  'create-plan': (clients, values) =>
    clients.plans.upsertPlan({
      resourceId: integer(values, 'resource-id'),
      slug: text(values, 'slug'),
      title: text(values, 'title'),
      active: values['inactive'] !== true,
      private: values['private'] === true,
      fullAccess: values['full-access'] === true,
      canOwnTeams: values['can-own-teams'] === true,
      parentPlanId: optional(values, 'parent-plan-id') === undefined ? undefined : integer(values, 'parent-plan-id'),
    }),
  'create-pricing': (clients, values) =>
    clients.pricings.upsertPricing({
      planId: integer(values, 'plan-id'),
      title: text(values, 'title'),
      price: integer(values, 'price'),
      currency: text(values, 'currency'),
      period: text(values, 'period'),
      active: true,
      private: values['private'] === true,
      externalSourceIds: optional(values, 'external-source-ids') ?? '',
      usersLimit: optional(values, 'users-limit') === undefined ? undefined : integer(values, 'users-limit'),
      type: optional(values, 'type'),
    }),
  'create-member': async (clients, values) => {
    const user = await clients.identity.upsertMember({
      resourceId: integer(values, 'resource-id'),
      email: text(values, 'email'),
      password: text(values, 'password'),
      role: optional(values, 'role') ?? 'user',
    });
    return { id: user.id, email: user.email };
  },
  'create-service-account': async (clients, values) => {
    const userId = optional(values, 'user-id');
    const created = await clients.serviceAccounts.createServiceAccount({
      resourceId: integer(values, 'resource-id'),
      title: text(values, 'title'),
      fullAccess: values['full-access'] === true,
      grants: list(values, 'grant'),
      userId: userId === undefined ? undefined : integer(values, 'user-id'),
    });
    process.stderr.write('The key is shown once; only its SHA-256 is stored. Keep it in a secret store.\n');
    return { ...showServiceAccount(created.account), key: created.key };
  },
  'list-service-accounts': async (clients, values) =>
    (await clients.serviceAccounts.listServiceAccounts({ resourceId: integer(values, 'resource-id') })).items.map(showServiceAccount),
  'revoke-service-account': async (clients, values) =>
    showServiceAccount(await clients.serviceAccounts.revokeServiceAccount({ id: integer(values, 'id') })),
  'suspend-service-account': async (clients, values) =>
    showServiceAccount(
      await clients.serviceAccounts.setServiceAccountStatus({
        id: integer(values, 'id'),
        status: ServiceAccountStatus.SERVICE_ACCOUNT_STATUS_SUSPENDED,
      }),
    ),
  'resume-service-account': async (clients, values) =>
    showServiceAccount(
      await clients.serviceAccounts.setServiceAccountStatus({
        id: integer(values, 'id'),
        status: ServiceAccountStatus.SERVICE_ACCOUNT_STATUS_ACTIVE,
      }),
    ),
  'restore-member-access': async (clients, values) => {
    const userId = optional(values, 'user-id');
    const email = optional(values, 'email') ?? '';
    if (userId === undefined && !email) throw new UsageError('--user-id or --email is required');
    const change = await clients.memberAccess.restoreMemberAccess({
      resourceId: integer(values, 'resource-id'),
      userId: userId === undefined ? 0 : integer(values, 'user-id'),
      email,
    });
    return {
      user_id: change.userId,
      resource_id: change.resourceId,
      previous_status: relationshipLabel(change.previousStatus),
      status: 'active',
    };
  },
  'set-cardprovider-key': async (clients, values) => {
    const secretKey = (await readStdin()).trim();
    if (!secretKey) throw new UsageError('pipe the secret key on standard input');
    return showConnection(
      await clients.connections.setSecretKey({ resourceId: integer(values, 'resource-id'), mode: text(values, 'mode'), secretKey }),
    );
  },
  'set-cardprovider-client-id': async (clients, values) =>
    showConnection(
      await clients.connections.setClientId({
        resourceId: integer(values, 'resource-id'),
        mode: text(values, 'mode'),
        clientId: text(values, 'client-id'),
      }),
    ),
  'show-cardprovider-key': async (clients, values) =>
    showConnection(await clients.connections.getConnection({ resourceId: integer(values, 'resource-id'), mode: text(values, 'mode') })),
  'create-invitation-code': async (clients, values) =>
    showInvitation(
      await clients.invitations.createInvitationCode({
        resourceId: integer(values, 'resource-id'),
        pricingId: integer(values, 'pricing-id'),
        code: optional(values, 'code') ?? '',
        activationsLimit: optional(values, 'activations-limit') === undefined ? 0 : integer(values, 'activations-limit'),
        startDate: optional(values, 'start-date'),
        endDate: optional(values, 'end-date'),
        email: optional(values, 'email') ?? '',
        title: optional(values, 'title') ?? '',
        description: optional(values, 'description') ?? '',
      }),
    ),
  'create-ti-event': (clients, values) =>
    clients.tiEvents.upsertEvent({
      resourceId: integer(values, 'resource-id'),
      title: text(values, 'title'),
      description: optional(values, 'description'),
      active: values['inactive'] !== true,
      photo: list(values, 'photo'),
      startDate: optional(values, 'start-date'),
      endDate: optional(values, 'end-date'),
    }),
  'create-ti-ticket': (clients, values) =>
    clients.tiEvents.upsertTicket({
      tiEventId: integer(values, 'ti-event-id'),
      title: text(values, 'title'),
      description: optional(values, 'description'),
      quantity: integer(values, 'quantity'),
      price: integer(values, 'price'),
      currency: text(values, 'currency'),
      active: values['inactive'] !== true,
      private: values['private'] === true,
      unassignLimit: optional(values, 'unassign-limit') === undefined ? 1 : integer(values, 'unassign-limit'),
    }),
  'create-sponsorship': (clients, values) =>
    clients.sponsorships.createSponsorship({
      resourceId: integer(values, 'resource-id'),
      sponsorId: integer(values, 'sponsor-id'),
      pricingId: integer(values, 'pricing-id'),
      purchaseKey: optional(values, 'purchase-key') ?? `admin-${randomUUID()}`,
      slots: optional(values, 'slots') === undefined ? 1 : integer(values, 'slots'),
      seatsPerSlot: optional(values, 'seats-per-slot') === undefined ? 1 : integer(values, 'seats-per-slot'),
      title: optional(values, 'title') ?? '',
      description: optional(values, 'description') ?? '',
      isPayingBySponsor: values['not-paying-by-sponsor'] !== true,
      autorenew: values['no-autorenew'] !== true,
    }),
  'issue-login-token': async (clients, values) => {
    const ttl = optional(values, 'ttl-seconds');
    const issued = await clients.recovery.issueExternalLoginToken({
      resourceId: integer(values, 'resource-id'),
      email: text(values, 'email'),
      ttlSeconds: ttl === undefined ? 0 : integer(values, 'ttl-seconds'),
    });
    process.stderr.write('The token is shown once and works once; hand it to the member at once.\n');
    return { user_id: issued.userId, token: issued.token, path: `/auth/external/${issued.token}`, expires: issued.expires };
  },
  ...providerCommands({ text, integer, optional, list, readStdin, usageError: (message) => new UsageError(message) }),
};

const STRING_OPTIONS = [
  'title',
  'partner-id',
  'public-key',
  'host',
  'origin',
  'resource-id',
  'slug',
  'plan-id',
  'price',
  'currency',
  'period',
  'email',
  'password',
  'role',
  'external-source-ids',
  'parent-plan-id',
  'users-limit',
  'type',
  'id',
  'user-id',
  'ttl-seconds',
  'mode',
  'client-id',
  'pricing-id',
  'code',
  'activations-limit',
  'start-date',
  'end-date',
  'description',
  'ti-event-id',
  'quantity',
  'unassign-limit',
  'sponsor-id',
  'slots',
  'seats-per-slot',
  'purchase-key',
  ...PROMO_STRING_OPTIONS,
  ...REFUND_STRING_OPTIONS,
  ...PLATFORM_STRING_OPTIONS,
  ...PROVIDER_STRING_OPTIONS,
];
const MULTIPLE_OPTIONS = ['grant', 'photo', ...PROMO_MULTIPLE_OPTIONS, ...PLATFORM_MULTIPLE_OPTIONS, ...PROVIDER_MULTIPLE_OPTIONS];
const FLAG_OPTIONS = [
  'force',
  'private',
  'inactive',
  'full-access',
  'can-own-teams',
  'not-paying-by-sponsor',
  'no-autorenew',
  ...PROMO_FLAG_OPTIONS,
  ...PLATFORM_FLAG_OPTIONS,
  ...PROVIDER_FLAG_OPTIONS,
];

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const run = command ? COMMANDS[command] : undefined;
  if (!run) {
    process.stdout.write(USAGE);
    return command && command !== 'help' ? 2 : 0;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      ...Object.fromEntries(STRING_OPTIONS.map((name) => [name, { type: 'string' as const }])),
      ...Object.fromEntries(FLAG_OPTIONS.map((name) => [name, { type: 'boolean' as const }])),
      ...Object.fromEntries(MULTIPLE_OPTIONS.map((name) => [name, { type: 'string' as const, multiple: true }])),
    },
  });
  const clients = adminClients();
  try {
    const result = await run(clients, values, positionals);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } finally {
    clients.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`masthead-admin: ${message}\n${error instanceof UsageError ? `\n${USAGE}` : ''}`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
