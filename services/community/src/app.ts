import type { Logger } from '@masthead/core/logging';
import { openServiceRuntime, serveRuntime, type RunningService } from '@masthead/core/service';
import { CommunityServiceService } from '@masthead/proto/community';
import type { CommunityConfig } from './config.js';
import { communityHandlers } from './grpc/handlers.js';
import { MemberSummaryService } from './members/member-summary.service.js';
import { PassRepository } from './passes/pass.repository.js';
import { TeamMemberRepository } from './teams/team-member.repository.js';
import { TeamRepository } from './teams/team.repository.js';

export type { CommunityConfig } from './config.js';
export { communityEnv, loadCommunityConfig } from './config.js';

/** Composition root: config → connections → repositories → domain → gRPC handlers. */
export async function startCommunityService(config: CommunityConfig, logger?: Logger): Promise<RunningService> {
  const runtime = await openServiceRuntime('community', config, logger);
  const teams = new TeamRepository(runtime.db);
  const teamMembers = new TeamMemberRepository(runtime.db);
  const passes = new PassRepository(runtime.db);
  await Promise.all([teams, teamMembers, passes].map((repository) => repository.ready()));

  const memberSummary = new MemberSummaryService({ teams, teamMembers, passes });
  return serveRuntime(runtime, config.GRPC_LISTEN, [
    {
      name: 'masthead.community.v1.CommunityService',
      definition: CommunityServiceService,
      implementation: communityHandlers({ memberSummary, teams }),
    },
  ]);
}
