import { loadCatalogConfig, startCatalogService } from '@masthead/catalog';
import { CatalogServiceService } from '@masthead/proto/catalog';
import { CommunityServiceService } from '@masthead/proto/community';
import { InvitationsServiceService } from '@masthead/proto/community/invitations';
import { TeamsServiceService } from '@masthead/proto/community/teams';
import { createServiceClient, type ServiceClient } from '@masthead/core/grpc';
import { startServiceHarness, type ServiceHarness } from '@masthead/service-testkit';
import { loadCommunityConfig, startCommunityService } from '../../src/app.js';

export type CommunityHarness = ServiceHarness<typeof CommunityServiceService>;

/** The community service in-process over real FerretDB and NATS, fresh prefix. */
export const startCommunityHarness = (env: Record<string, string> = {}): Promise<CommunityHarness> =>
  startServiceHarness({
    service: 'community',
    definition: CommunityServiceService,
    start: (serviceEnv) => startCommunityService(loadCommunityConfig(serviceEnv)),
    env,
  });

export interface CommunityStack {
  community: CommunityHarness;
  catalog: ServiceHarness<typeof CatalogServiceService>;
  teams: ServiceClient<typeof TeamsServiceService>;
  invitations: ServiceClient<typeof InvitationsServiceService>;
  stop(): Promise<void>;
}

/** Community with the real catalog it calls (plans, pricings, memberships). */
export async function startCommunityStack(): Promise<CommunityStack> {
  const catalog = await startServiceHarness({
    service: 'catalog',
    definition: CatalogServiceService,
    start: (env) => startCatalogService(loadCatalogConfig(env)),
  });
  const community = await startCommunityHarness({ CATALOG_ADDR: catalog.address });
  const teams = createServiceClient(TeamsServiceService, community.address, { defaultDeadlineMs: 30_000 });
  const invitations = createServiceClient(InvitationsServiceService, community.address, { defaultDeadlineMs: 30_000 });
  return {
    community,
    catalog,
    teams,
    invitations,
    stop: async () => {
      teams.close();
      invitations.close();
      await community.stop();
      await catalog.stop();
    },
  };
}
