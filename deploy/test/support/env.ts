/**
 * The environment each Masthead process reads and validates at boot, taken from the processes'
 * own config schemas (each service's and the gateway's `config.ts`; libs/core's `commonEnv` and
 * `serviceAddresses` for the admin CLI, which has no exported schema). A name outside its
 * process's list is a typo or a setting nobody reads.
 */
import { accountsEnv } from '@masthead/accounts';
import { billingEnv } from '@masthead/billing';
import { catalogEnv } from '@masthead/catalog';
import { communityEnv } from '@masthead/community';
import { commonEnv, serviceAddresses } from '@masthead/core/config';
import { gatewayEnv } from '@masthead/gateway';
import { identityEnv } from '@masthead/identity';
import { integrationsEnv } from '@masthead/integrations';

export const SERVICE_NAMES = ['accounts', 'identity', 'catalog', 'billing', 'community', 'integrations'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
export type ProcessName = ServiceName | 'gateway' | 'admin';

export const ADDRESS_VARIABLES: Record<ServiceName, string> = {
  accounts: 'ACCOUNTS_ADDR',
  identity: 'IDENTITY_ADDR',
  catalog: 'CATALOG_ADDR',
  billing: 'BILLING_ADDR',
  community: 'COMMUNITY_ADDR',
  integrations: 'INTEGRATIONS_ADDR',
};
const ADDRESSES = Object.keys(serviceAddresses);

const SCHEMAS: Record<Exclude<ProcessName, 'admin'>, object> = {
  accounts: accountsEnv,
  identity: identityEnv,
  catalog: catalogEnv,
  billing: billingEnv,
  community: communityEnv,
  integrations: integrationsEnv,
  gateway: gatewayEnv,
};

/**
 * The services also get all six `*_ADDR`, whether or not they call that service: the shared
 * ConfigMap `masthead-env` (envFrom) and compose's common environment carry every address.
 */
const allowed = (process: Exclude<ProcessName, 'admin'>): ReadonlySet<string> =>
  new Set([...Object.keys(SCHEMAS[process]), ...(process === 'gateway' ? [] : ADDRESSES)]);

export const ALLOWED_ENV: Record<ProcessName, ReadonlySet<string>> = {
  accounts: allowed('accounts'),
  identity: allowed('identity'),
  catalog: allowed('catalog'),
  billing: allowed('billing'),
  community: allowed('community'),
  integrations: allowed('integrations'),
  gateway: allowed('gateway'),
  admin: new Set([...Object.keys(commonEnv), ...ADDRESSES]),
};

/** Every name any process reads. */
export const ALL_ENV: ReadonlySet<string> = new Set(Object.values(ALLOWED_ENV).flatMap((names) => [...names]));

/** Which process a container runs, from its command line (`node [flags] <script> …`). */
export function processOf(command: readonly string[]): ProcessName | undefined {
  for (const argument of command) {
    const service = /^services\/([a-z]+)\/dist\/main\.js$/.exec(argument)?.[1];
    if (service && (SERVICE_NAMES as readonly string[]).includes(service)) return service as ServiceName;
    if (argument === 'gateway/dist/main.js') return 'gateway';
    if (argument === 'tools/admin/dist/cli.js') return 'admin';
  }
  return undefined;
}
