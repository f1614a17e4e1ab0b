import { createClients, type Clients } from '@masthead/core/clients';
import { loadConfig, serviceAddresses } from '@masthead/core/config';
import { runningStackEnv } from './stack-env.js';

/** The internal APIs the admin CLI calls, from the clients table shared with the gateway (ADR 0097). */
const ADMIN_CLIENTS = [
  'accounts',
  'serviceAccounts',
  'identity',
  'plans',
  'pricings',
  'memberships',
  'memberAccess',
  'recovery',
  'connections',
  'invitations',
  'tiEvents',
  'sponsorships',
  'providerConfig',
  'crm',
  'listmgr',
  'templates',
  'captcha',
  'publicEvents',
  'webhooks',
  'promoCodes',
  'owedRefunds',
  'entitlements',
] as const;

export type AdminClients = Clients<(typeof ADMIN_CLIENTS)[number]> & { close(): void };

/**
 * Clients of the internal APIs, addressed by the same variables the services use; those not set
 * come from the stack `npm start` runs, when one runs.
 */
export function adminClients(env: NodeJS.ProcessEnv = process.env): AdminClients {
  const stack = runningStackEnv(env);
  const config = loadConfig(
    {
      ACCOUNTS_ADDR: serviceAddresses.ACCOUNTS_ADDR,
      IDENTITY_ADDR: serviceAddresses.IDENTITY_ADDR,
      CATALOG_ADDR: serviceAddresses.CATALOG_ADDR,
      BILLING_ADDR: serviceAddresses.BILLING_ADDR,
      COMMUNITY_ADDR: serviceAddresses.COMMUNITY_ADDR,
      INTEGRATIONS_ADDR: serviceAddresses.INTEGRATIONS_ADDR,
    },
    { ...stack.env, ...env },
  );
  const addresses = {
    accounts: config.ACCOUNTS_ADDR,
    identity: config.IDENTITY_ADDR,
    catalog: config.CATALOG_ADDR,
    billing: config.BILLING_ADDR,
    community: config.COMMUNITY_ADDR,
    integrations: config.INTEGRATIONS_ADDR,
  };
  return createClients(ADMIN_CLIENTS, addresses, { defaultDeadlineMs: 30_000 });
}
