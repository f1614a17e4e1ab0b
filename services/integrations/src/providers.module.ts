import { createClient } from '@masthead/core/clients';
import type { ServiceRegistration } from '@masthead/core/grpc';
import type { ServiceRuntime } from '@masthead/core/service';
import { AudienceServiceService } from '@masthead/proto/integrations/audience';
import { CrmServiceService } from '@masthead/proto/integrations/crm';
import { ListManagerServiceService } from '@masthead/proto/integrations/listmgr';
import { ProviderConfigServiceService } from '@masthead/proto/integrations/provider_config';
import { AudienceService } from './audience/audience.service.js';
import type { IntegrationsConfig } from './config.js';
import { CrmTagRepository } from './crm/crm-tag.repository.js';
import { CrmService } from './crm/crm.service.js';
import { audienceHandlers } from './grpc/audience.handlers.js';
import { crmHandlers } from './grpc/crm.handlers.js';
import { listmgrHandlers } from './grpc/listmgr.handlers.js';
import { providerConfigHandlers } from './grpc/provider-config.handlers.js';
import { ListRepository, ListStateCache } from './listmgr/list.repository.js';
import { ListmgrService } from './listmgr/listmgr.service.js';
import { MemberDirectory } from './members/member-directory.js';
import { ProviderConfigRepository } from './provider-config/provider-config.repository.js';
import { ProviderConfigService } from './provider-config/provider-config.service.js';
import { providerKeyRing } from './provider-config/provider-env.js';
import { ProviderHttp } from './provider-http/provider-http.js';

/** The list manager's email-key state cache lives 600 seconds (document 2 H Limits). */
const LIST_STATE_TTL_MS = 600_000;

export interface ProvidersModule {
  services: ServiceRegistration<unknown>[];
  stop(): Promise<void>;
}

/**
 * The email-list and CRM provider areas (`audience`, `crm`, `listmgr`; docs/adr/0160-0164):
 * their repositories, adapters and gRPC services, wired from the runtime and the config.
 */
export async function startProvidersModule(runtime: ServiceRuntime, config: IntegrationsConfig): Promise<ProvidersModule> {
  const identity = createClient('identity', { identity: config.IDENTITY_ADDR }, { defaultDeadlineMs: config.GRPC_DEADLINE_MS });
  const { db, events, logger } = runtime;
  const configRows = new ProviderConfigRepository(db);
  const tagRows = new CrmTagRepository(db);
  const listRows = new ListRepository(db);
  const stateCache = new ListStateCache(db, LIST_STATE_TTL_MS);
  await Promise.all([configRows, tagRows, listRows, stateCache].map((repository) => repository.ready()));

  const ring = providerKeyRing(config);
  if (!ring) logger.warn('INTEGRATIONS_SECRETS_KEYS is not set: provider secrets can be neither stored nor used');
  const configs = new ProviderConfigService({ configs: configRows, ring, logger });
  const resealed = await configs.resealAll();
  if (resealed > 0) logger.info({ resealed }, 'provider secrets re-sealed with the current key');

  const members = new MemberDirectory(identity);
  const http = (provider: string, resetHeader?: string) =>
    new ProviderHttp({ provider, timeoutMs: config.PROVIDER_TIMEOUT_MS, logger, resetHeader });
  const audience = new AudienceService({ configs, members, http: http('audience'), apiBase: config.AUDIENCE_API_BASE, events, logger });
  const crm = new CrmService({ configs, members, tags: tagRows, http: http('crm'), apiBase: config.CRM_API_BASE, events, logger });
  const listmgr = new ListmgrService({
    configs,
    members,
    lists: listRows,
    cache: stateCache,
    http: http('listmgr', 'x-ratelimit-reset'),
    apiBase: config.LISTMGR_API_BASE,
    events,
    logger,
  });

  const services: ServiceRegistration<unknown>[] = [
    { name: 'masthead.integrations.v1.AudienceService', definition: AudienceServiceService, implementation: audienceHandlers(audience) },
    { name: 'masthead.integrations.v1.CrmService', definition: CrmServiceService, implementation: crmHandlers(crm) },
    {
      name: 'masthead.integrations.v1.ListManagerService',
      definition: ListManagerServiceService,
      implementation: listmgrHandlers(listmgr),
    },
    {
      name: 'masthead.integrations.v1.ProviderConfigService',
      definition: ProviderConfigServiceService,
      implementation: providerConfigHandlers(configs),
    },
  ];
  return { services, stop: async () => identity.close() };
}
