import { CommunityServiceService } from '@masthead/proto/community';
import { startServiceHarness, type ServiceHarness } from '@masthead/service-testkit';
import { loadCommunityConfig, startCommunityService } from '../../src/app.js';

export type CommunityHarness = ServiceHarness<typeof CommunityServiceService>;

/** The community service in-process over real FerretDB and NATS, fresh prefix. */
export const startCommunityHarness = (): Promise<CommunityHarness> =>
  startServiceHarness({
    service: 'community',
    definition: CommunityServiceService,
    start: (env) => startCommunityService(loadCommunityConfig(env)),
  });
