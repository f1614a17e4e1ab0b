// Community's integration tests grant memberships through a real catalog process: starting it is
// the one use of another service's code, and only in tests (ADR 0101; it moves to tests/stack next).
// eslint-disable-next-line no-restricted-imports
import { loadCatalogConfig, startCatalogService } from '@masthead/catalog';
import { PlansServiceService } from '@masthead/proto/catalog/plans';
import { CommunityServiceService } from '@masthead/proto/community';
import { InvitationsServiceService } from '@masthead/proto/community/invitations';
import { TeamsServiceService } from '@masthead/proto/community/teams';
import { createServiceClient, type ServiceClient } from '@masthead/core/grpc';
import { processClient, startServiceHarness, type ProcessClient, type ServiceHarness } from '@masthead/service-testkit';
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
  catalog: Omit<ServiceHarness<typeof PlansServiceService>, 'client'> & { client: ProcessClient<'plans' | 'pricings' | 'memberships'> };
  teams: ServiceClient<typeof TeamsServiceService>;
  invitations: ServiceClient<typeof InvitationsServiceService>;
  stop(): Promise<void>;
}

/** Community with the real catalog it calls (plans, pricings, memberships). */
export async function startCommunityStack(): Promise<CommunityStack> {
  const catalog = await startServiceHarness({
    service: 'catalog',
    definition: PlansServiceService,
    start: (env) => startCatalogService(loadCatalogConfig(env)),
  });
  const catalogClient = processClient(['plans', 'pricings', 'memberships'], catalog.address);
  catalog.onStop(async () => catalogClient.close());
  const community = await startCommunityHarness({ CATALOG_ADDR: catalog.address });
  const teams = createServiceClient(TeamsServiceService, community.address, { defaultDeadlineMs: 30_000 });
  const invitations = createServiceClient(InvitationsServiceService, community.address, { defaultDeadlineMs: 30_000 });
  return {
    community,
    catalog: { ...catalog, client: catalogClient },
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
