// Community's integration tests grant memberships through a real catalog process: starting it is
// the one use of another service's code, and only in tests (ADR 0101; it moves to tests/stack next).
// eslint-disable-next-line no-restricted-imports
import { loadCatalogConfig, startCatalogService } from '@masthead/catalog';
import { PlansServiceService } from '@masthead/proto/catalog/plans';
import { CommunityServiceService } from '@masthead/proto/community';
import { InvitationsServiceService } from '@masthead/proto/community/invitations';
import { SponsorshipsServiceService } from '@masthead/proto/community/sponsorships';
import { TeamsServiceService } from '@masthead/proto/community/teams';
import { createServiceClient, type ServiceClient } from '@masthead/core/grpc';
import {
  processClient,
  startDarkLink,
  startServiceHarness,
  type DarkLink,
  type ProcessClient,
  type ServiceHarness,
} from '@masthead/service-testkit';
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
  sponsorships: ServiceClient<typeof SponsorshipsServiceService>;
  /** What community's calls to catalog go through, with `overDarkLink`: it fails them on command. */
  link: DarkLink | null;
  stop(): Promise<void>;
}

export interface CommunityStackOptions {
  /** Community's own environment beyond the harness's. */
  env?: Record<string, string>;
  /** Community reaches catalog through a DarkLink (fault injection). */
  overDarkLink?: boolean;
}

/** Community with the real catalog it calls (plans, pricings, memberships). */
export async function startCommunityStack(options: CommunityStackOptions = {}): Promise<CommunityStack> {
  const catalog = await startServiceHarness({
    service: 'catalog',
    definition: PlansServiceService,
    start: (env) => startCatalogService(loadCatalogConfig(env)),
  });
  const catalogClient = processClient(['plans', 'pricings', 'memberships'], catalog.address);
  catalog.onStop(async () => catalogClient.close());
  const link = options.overDarkLink ? await startDarkLink(catalog.address) : null;
  if (link) catalog.onStop(() => link.stop());
  const community = await startCommunityHarness({ CATALOG_ADDR: link?.address ?? catalog.address, ...options.env });
  const deadline = { defaultDeadlineMs: 30_000 };
  const teams = createServiceClient(TeamsServiceService, community.address, deadline);
  const invitations = createServiceClient(InvitationsServiceService, community.address, deadline);
  const sponsorships = createServiceClient(SponsorshipsServiceService, community.address, deadline);
  return {
    community,
    catalog: { ...catalog, client: catalogClient },
    teams,
    invitations,
    sponsorships,
    link,
    stop: async () => {
      teams.close();
      invitations.close();
      sponsorships.close();
      await community.stop();
      await catalog.stop();
    },
  };
}
