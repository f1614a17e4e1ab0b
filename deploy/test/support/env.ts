/**
 * The environment each Masthead process reads and validates at boot (its config schema: libs/core
 * `commonEnv`/`serviceEnv`/`serviceAddresses`, each service's and the gateway's `config.ts`, the
 * admin CLI's clients). A name outside its process's list is a typo or a setting nobody reads.
 */

export const SERVICE_NAMES = ['accounts', 'identity', 'catalog', 'billing', 'community', 'integrations'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
export type ProcessName = ServiceName | 'gateway' | 'admin';

const COMMON = ['LOG_LEVEL', 'MASTHEAD_ENV', 'GRPC_DEADLINE_MS'];
export const ADDRESS_VARIABLES: Record<ServiceName, string> = {
  accounts: 'ACCOUNTS_ADDR',
  identity: 'IDENTITY_ADDR',
  catalog: 'CATALOG_ADDR',
  billing: 'BILLING_ADDR',
  community: 'COMMUNITY_ADDR',
  integrations: 'INTEGRATIONS_ADDR',
};
const ADDRESSES = Object.values(ADDRESS_VARIABLES);
const SERVICE = [...COMMON, 'GRPC_LISTEN', 'MONGO_URL', 'MONGO_DB_PREFIX', 'NATS_URL', 'OUTBOX_RETRY_MS', ...ADDRESSES];

export const ALLOWED_ENV: Record<ProcessName, ReadonlySet<string>> = {
  accounts: new Set([...SERVICE, 'SECRETS_KEY']),
  identity: new Set([
    ...SERVICE,
    'SESSION_TTL_SECONDS',
    'REFRESH_TTL_SECONDS',
    'ARGON2_MEMORY_KIB',
    'ARGON2_ITERATIONS',
    'ARGON2_PARALLELISM',
    'HASH_QUEUE_LIMIT',
    // Also in identity's config schema and the repository README's configuration table.
    'HASH_CONCURRENCY',
    'AUTH_CODE_TTL_SECONDS',
    'RESOURCE_CACHE_TTL_MS',
  ]),
  catalog: new Set(SERVICE),
  billing: new Set(SERVICE),
  community: new Set(SERVICE),
  integrations: new Set(SERVICE),
  gateway: new Set([
    ...COMMON,
    ...ADDRESSES,
    'PORT',
    'HOST',
    'NATS_URL',
    'CORS_ALLOWED_ORIGINS',
    'RESOURCE_CACHE_TTL_MS',
    'TRUST_PROXY',
    'BODY_LIMIT',
  ]),
  admin: new Set([...COMMON, ...ADDRESSES]),
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
