import type { Logger } from '@masthead/core/logging';
import { openServiceRuntime, serveRuntime, type RunningService } from '@masthead/core/service';
import { AccountsServiceService } from '@masthead/proto/accounts';
import type { AccountsConfig } from './config.js';
import { accountsHandlers } from './grpc/handlers.js';
import { PartnerRepository } from './partners/partner.repository.js';
import { ResourceRepository } from './resources/resource.repository.js';
import { ResourceService } from './resources/resource.service.js';

export type { AccountsConfig } from './config.js';
export { accountsEnv, loadAccountsConfig } from './config.js';

/** Composition root: config → connections → repositories → domain → gRPC handlers. */
export async function startAccountsService(config: AccountsConfig, logger?: Logger): Promise<RunningService> {
  const runtime = await openServiceRuntime('accounts', config, logger);
  const partners = new PartnerRepository(runtime.db);
  const resources = new ResourceService({ resources: new ResourceRepository(runtime.db), partners, events: runtime.events });
  await Promise.all([partners.ready(), resources.ready()]);
  return serveRuntime(runtime, config.GRPC_LISTEN, [
    {
      name: 'masthead.accounts.v1.AccountsService',
      definition: AccountsServiceService,
      implementation: accountsHandlers({ resources, partners }),
    },
  ]);
}
