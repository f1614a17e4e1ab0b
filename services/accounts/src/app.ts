import { createServiceClient } from '@masthead/core/grpc';
import type { Logger } from '@masthead/core/logging';
import { openServiceRuntime, serveRuntime, type RunningService } from '@masthead/core/service';
import { AccountsServiceService } from '@masthead/proto/accounts';
import { IdentityServiceService } from '@masthead/proto/identity';
import type { AccountsConfig } from './config.js';
import { accountsHandlers } from './grpc/handlers.js';
import { PartnerRepository } from './partners/partner.repository.js';
import { ResourceRepository } from './resources/resource.repository.js';
import { ResourceService } from './resources/resource.service.js';
import { identityServiceAccountUsers } from './service-accounts/service-account-users.js';
import { ServiceAccountRepository } from './service-accounts/service-account.repository.js';
import { ServiceAccountService } from './service-accounts/service-account.service.js';

export type { AccountsConfig } from './config.js';
export { accountsEnv, loadAccountsConfig } from './config.js';

/** Composition root: config → connections → repositories → domain → gRPC handlers. */
export async function startAccountsService(config: AccountsConfig, logger?: Logger): Promise<RunningService> {
  const runtime = await openServiceRuntime('accounts', config, logger);
  const partners = new PartnerRepository(runtime.db);
  const resources = new ResourceService({ resources: new ResourceRepository(runtime.db), partners, events: runtime.events });
  const identity = createServiceClient(IdentityServiceService, config.IDENTITY_ADDR, { defaultDeadlineMs: config.GRPC_DEADLINE_MS });
  const serviceAccounts = new ServiceAccountService({
    accounts: new ServiceAccountRepository(runtime.db),
    resources,
    users: identityServiceAccountUsers(identity),
    events: runtime.events,
  });
  await Promise.all([partners.ready(), resources.ready(), serviceAccounts.ready()]);
  return serveRuntime(
    runtime,
    config.GRPC_LISTEN,
    [
      {
        name: 'masthead.accounts.v1.AccountsService',
        definition: AccountsServiceService,
        implementation: accountsHandlers({ resources, partners, serviceAccounts }),
      },
    ],
    async () => identity.close(),
  );
}
