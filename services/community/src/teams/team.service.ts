import type { DomainEvents, EventName, EventPublisher } from '@masthead/core/events';
import { buildListQuery, toPaginator, type ListSpec, type PageRequest, type Paginator } from '@masthead/core/pagination';
import type { Caller, CreateTeamRequest, UpdateTeamMemberRequest, UpdateTeamRequest } from '@masthead/proto/community/teams';
import type { InviteRepository } from '../invitations/invite.repository.js';
import type { InviteRecord } from '../invitations/invite.schema.js';
import { invalidTeamField, noTeamPermission, teamUserNotFound } from './team.errors.js';
import type { PricingSeats } from './pricing-seats.js';
import type { TeamAccess } from './team-access.js';
import type { TeamMemberRepository } from './team-member.repository.js';
import type { TeamMemberRecord } from './team-member.schema.js';
import type { TeamRepository } from './team.repository.js';
import type { TeamRecord } from './team.schema.js';

/** A team with its relationships and invites: what its list item and detail are made of. */
export interface TeamView {
  team: TeamRecord;
  members: TeamMemberRecord[];
  invites: InviteRecord[];
}

export interface Page<T> {
  rows: T[];
  paginator: Paginator;
}

type TeamFields = Pick<CreateTeamRequest, 'name' | 'description' | 'autoAllowedDomains'>;
type TeamChanges = Pick<UpdateTeamRequest, 'name' | 'description' | 'clearDescription'>;
type MemberChanges = Pick<UpdateTeamMemberRequest, 'role' | 'status' | 'pricingId'>;

/** GET /user/teams filters and sorts by the spec's `Teams.*` names; `by` defaults to Teams.id. */
const TEAM_LIST: ListSpec = {
  fields: {
    'Teams.id': { path: '_id', type: 'number' },
    'Teams.name': { path: 'name', type: 'text' },
    'Teams.active': { path: 'active', type: 'boolean' },
  },
  defaultOrder: { path: '_id', sort: 'DESC' },
};

/** Name limit: 255 "before sanitization" (document 2 Limits); sanitized = trimmed, tags stripped. */
const NAME_MAX = 255;
const sanitize = (value: string) => value.replace(/<[^>]*>/g, '').trim();

interface Deps {
  teams: TeamRepository;
  members: TeamMemberRepository;
  pricingSeats: PricingSeats;
  invites: InviteRepository;
  access: TeamAccess;
  events: EventPublisher;
}

/** Teams and team members (document 2 C; docs/adr/0130-0132). */
export class TeamService {
  constructor(private readonly deps: Deps) {}

  /** Teams the user owns or administers, suspended relationships included (no resource filter). */
  async list(caller: Caller, request: PageRequest): Promise<Page<TeamView>> {
    const own = await this.deps.members.listCurrentForUser(caller.userId);
    const teamIds = own.filter((row) => row.role === 'owner' || row.role === 'admin').map((row) => row.team_id);
    // Under $and: the scope names `_id` too, and would otherwise replace a Teams.id filter.
    const query = buildListQuery(request, TEAM_LIST, { $and: [{ _id: { $in: teamIds } }] });
    const page = await this.deps.teams.page(query.filter, query.sort, query.skip, query.limit);
    const ids = page.rows.map((team) => team._id);
    const [members, invites] = await Promise.all([this.deps.members.listForTeams(ids), this.deps.invites.listForTeams(ids)]);
    return {
      rows: page.rows.map((team) => ({
        team,
        members: members.filter((row) => row.team_id === team._id),
        invites: invites.filter((row) => row.team_id === team._id),
      })),
      paginator: toPaginator(request, page.total),
    };
  }

  /**
   * POST /user/teams: eligible member → team (active, member_limit 0, as document 2's state table
   * fixes it) + active owner relationship. What bounds the team is its Pricings' `users_limit`,
   * claimed seat by seat where access is granted (docs/adr/0233).
   */
  async create(caller: Caller, fields: TeamFields): Promise<TeamRecord> {
    if (!(await this.deps.access.canOwnTeams(caller))) throw noTeamPermission();
    const name = this.name(fields.name);
    const description = fields.description === undefined ? null : sanitize(fields.description);
    // auto_allowed_domains_for_team: the owner's email domain becomes the team's allowed domain.
    const domain = fields.autoAllowedDomains ? caller.email.split('@')[1]?.toLowerCase() : undefined;
    const team = await this.deps.teams.insert({
      name,
      description,
      owner_id: caller.userId,
      active: true,
      member_limit: 0,
      allowed_domains: domain ? [domain] : [],
    });
    await this.deps.members.insert({ team_id: team._id, user_id: caller.userId, role: 'owner', status: 'active', pricing_id: null });
    await this.publish('team_owner_create_team', caller, { team_id: team._id, owner_id: caller.userId, name });
    return team;
  }

  async detail(caller: Caller, teamId: number): Promise<TeamView> {
    const team = await this.deps.access.manageable(caller, teamId);
    const [members, invites] = await Promise.all([this.deps.members.listForTeams([team._id]), this.deps.invites.listForTeams([team._id])]);
    return { team, members, invites };
  }

  /** PUT /user/teams/{team_id}: display fields only (name, description). */
  async update(caller: Caller, teamId: number, fields: TeamChanges): Promise<TeamRecord> {
    const team = await this.deps.access.manageable(caller, teamId);
    const changes: { name?: string; description?: string | null } = {};
    if (fields.name !== undefined) changes.name = this.name(fields.name);
    if (fields.description !== undefined) changes.description = sanitize(fields.description);
    else if (fields.clearDescription) changes.description = null;
    return (await this.deps.teams.update(team._id, changes)) ?? team;
  }

  /** DELETE /user/teams/{team_id}: the team and its invites go; relationships are kept as removed, their Pricing seats freed. */
  async delete(caller: Caller, teamId: number): Promise<void> {
    const team = await this.deps.access.manageable(caller, teamId);
    await this.deps.invites.deleteForTeam(team._id);
    await this.deps.members.removeAll(team._id);
    await this.deps.pricingSeats.releaseTeam(team._id);
    await this.deps.teams.delete(team._id);
  }

  async listMembers(caller: Caller, teamId: number, request: PageRequest): Promise<Page<TeamMemberRecord>> {
    const team = await this.deps.access.manageable(caller, teamId);
    const page = await this.deps.members.pageNonOwners(team._id, (request.page - 1) * request.limit, request.limit);
    return { rows: page.rows, paginator: toPaginator(request, page.total) };
  }

  member(caller: Caller, teamId: number, userId: number): Promise<TeamMemberRecord> {
    return this.target(caller, teamId, userId, { allowOwner: true });
  }

  /** Role admin/user, status active/suspended, or the requested Pricing (`subscription_id`). */
  async updateMember(caller: Caller, teamId: number, userId: number, fields: MemberChanges): Promise<TeamMemberRecord> {
    const row = await this.target(caller, teamId, userId);
    const changes: Parameters<TeamMemberRepository['update']>[2] = {};
    const { role, status, pricingId } = fields;
    if (role !== undefined) {
      if (role !== 'admin' && role !== 'user') throw invalidTeamField('role', 'role must be admin or user');
      changes.role = role;
    }
    if (status !== undefined) {
      if (status !== 'active' && status !== 'suspended') throw invalidTeamField('status', 'status must be active or suspended');
      changes.status = status;
    }
    if (pricingId !== undefined) {
      if (pricingId < 0) throw invalidTeamField('subscription_id', 'subscription_id must be a Pricing ID');
      changes.pricing_id = pricingId || null;
    }
    // A relationship moved to a Pricing, or back from removed, takes a seat of its Pricing (docs/adr/0233).
    const pricingBefore = row.pricing_id ?? null;
    const pricingAfter = changes.pricing_id !== undefined ? changes.pricing_id : pricingBefore;
    const seated = (changes.status ?? row.status) !== 'removed' && (row.status === 'removed' || pricingAfter !== pricingBefore);
    if (seated && !(await this.deps.pricingSeats.takeById(caller.resourceId, row.team_id, row.user_id, pricingAfter))) {
      throw invalidTeamField(pricingAfter !== pricingBefore ? 'subscription_id' : 'status', 'No seats are left on this Pricing');
    }
    const updated = (await this.deps.members.update(row.team_id, row.user_id, changes)) ?? row;
    if (seated) await this.deps.pricingSeats.keepOnly(row.team_id, row.user_id, pricingAfter);
    return updated;
  }

  /** Removed relationships give their Pricing seat back; suspended ones keep it (and their membership). */
  async setStatus(caller: Caller, teamId: number, userId: number, status: 'removed' | 'suspended'): Promise<TeamMemberRecord> {
    const row = await this.target(caller, teamId, userId);
    const updated = (await this.deps.members.update(row.team_id, row.user_id, { status })) ?? row;
    if (status === 'removed') await this.deps.pricingSeats.keepOnly(row.team_id, row.user_id, null);
    return updated;
  }

  /** The relationship a member operation changes: never the owner's (the team would lose it). */
  private async target(caller: Caller, teamId: number, userId: number, options: { allowOwner?: boolean } = {}): Promise<TeamMemberRecord> {
    const team = await this.deps.access.manageable(caller, teamId);
    const row = userId > 0 ? await this.deps.members.find(team._id, userId) : null;
    if (!row || (row.role === 'owner' && !options.allowOwner)) throw teamUserNotFound();
    return row;
  }

  private name(name: string): string {
    if (!name.trim()) throw invalidTeamField('name', 'name is required');
    if (name.length > NAME_MAX) throw invalidTeamField('name', `name must be at most ${NAME_MAX} characters`);
    return sanitize(name);
  }

  /** Queue failures are swallowed on these paths (document 2 Events); the outbox keeps them. */
  private async publish<N extends EventName>(name: N, caller: Caller, payload: DomainEvents[N]): Promise<void> {
    try {
      await this.deps.events.publish({ name, resourceId: caller.resourceId, payload });
    } catch {
      /* document 2 Events: HTTP success never proves queue acceptance */
    }
  }
}
