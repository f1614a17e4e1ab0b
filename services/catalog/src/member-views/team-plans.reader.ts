import type { CallContext, ServiceClient } from '@masthead/core/grpc';
import { toPaginator, type PageRequest } from '@masthead/core/pagination';
import type { CommunityServiceService } from '@masthead/proto/community';
import type { MembershipRepository } from '../memberships/membership.repository.js';
import type { PlanRepository } from '../plans/plan.repository.js';
import type { PlanPageView } from '../plans/plan.service.js';
import type { PricingRepository } from '../pricings/pricing.repository.js';

interface TeamPlansReaderDeps {
  memberships: MembershipRepository;
  plans: PlanRepository;
  pricings: PricingRepository;
  community: ServiceClient<typeof CommunityServiceService>;
}

/**
 * GET /user/teams/{team_id}/plans: the plans a team owner can give seats of. The team must exist
 * (community service; 404 team_not_found), but the selection is not restricted by it (document
 * 1 F): it is every active child plan, that cannot own teams itself, of the active team plans
 * (`can_own_teams`) the user holds a membership of in the resource, any membership status
 * counting, as for team-management eligibility (document 2 C: "no active/expiry filter"). Child
 * plans are shown private or not, with all their active pricings (private included): seat plans
 * are usually kept out of the public catalog and reached only through the team plan.
 */
export class TeamPlansReader {
  constructor(private readonly deps: TeamPlansReaderDeps) {}

  /** Can-own-teams eligibility: a membership (any status) of an active team plan of the resource. */
  async canOwnTeams(resourceId: number, userId: number): Promise<boolean> {
    const memberships = await this.deps.memberships.listAll(resourceId, userId);
    const parents = await this.deps.plans.findActiveTeamPlans(resourceId, [...new Set(memberships.map((row) => row.plan_id))]);
    return parents.length > 0;
  }

  async list(resourceId: number, userId: number, teamId: number, request: PageRequest, call: CallContext): Promise<PlanPageView> {
    await this.deps.community.getTeam({ teamId }, { ...call, idempotent: true });
    const memberships = await this.deps.memberships.listAll(resourceId, userId);
    const parents = await this.deps.plans.findActiveTeamPlans(resourceId, [...new Set(memberships.map((row) => row.plan_id))]);
    const page = await this.deps.plans.listTeamChildren(
      resourceId,
      parents.map((plan) => plan._id),
      request,
    );
    const pricings = await this.deps.pricings.listActiveForPlans(
      resourceId,
      page.rows.map((plan) => plan._id),
      { includePrivate: true },
    );
    return {
      items: page.rows.map((plan) => ({ plan, pricings: pricings.filter((pricing) => pricing.plan_id === plan._id) })),
      paginator: toPaginator(request, page.total),
    };
  }
}
