import type { EventPublisher } from '@masthead/core/events';
import { isDuplicateKey } from '@masthead/core/mongo';
import { toPaginator, type PageRequest } from '@masthead/core/pagination';
import type { ClientOf } from '@masthead/core/clients';
import type { Pricing } from '@masthead/proto/catalog';
import type { CreateTeamInviteRequest, UpdateTeamInviteRequest } from '@masthead/proto/community/invitations';
import type { Caller } from '@masthead/proto/community/teams';
import { EMAIL_PATTERN, generateCode } from '../support/codes.js';
import type { PaymentCustomers } from '../support/payment-customers.js';
import { invalidTeamField } from '../teams/team.errors.js';
import type { TeamAccess } from '../teams/team-access.js';
import type { TeamMemberRepository } from '../teams/team-member.repository.js';
import type { TeamRecord } from '../teams/team.schema.js';
import type { Page } from '../teams/team.service.js';
import { domainAllowed } from './domains.js';
import { inviteException, inviteNotFound } from './invite.errors.js';
import type { InviteRepository } from './invite.repository.js';
import type { InviteRecord } from './invite.schema.js';

type InviteFields = Omit<CreateTeamInviteRequest, 'caller' | 'teamId'>;

/** Roles that resend any invite of their resource (document 2 C: admin and root; partner inherits admin). */
const RESENDING_ROLES = new Set(['admin', 'partner']);

/** Whether the caller's role, which counts only where it was granted (docs/adr/0239), covers this invite. */
const roleReaches = (caller: Caller, invite: InviteRecord | null): boolean =>
  caller.role === 'root' || (invite !== null && RESENDING_ROLES.has(caller.role) && invite.resource_id === caller.resourceId);
type InviteChanges = Pick<UpdateTeamInviteRequest, 'title' | 'description' | 'userName'>;

/** Limits of document 2 (Limits table). */
const EMAIL_MAX = 60;
const TITLE_MAX = 128;
const CODE_MIN = 10;
const CODE_MAX = 40;

interface Deps {
  invites: InviteRepository;
  members: TeamMemberRepository;
  access: TeamAccess;
  pricings: ClientOf<'pricings'>;
  payments: PaymentCustomers;
  events: EventPublisher;
}

/** Team invitations (document 2 C; docs/adr/0133). */
export class TeamInviteService {
  constructor(private readonly deps: Deps) {}

  async create(caller: Caller, teamId: number, fields: InviteFields): Promise<InviteRecord> {
    const team = await this.deps.access.manageable(caller, teamId);
    const email = await this.email(team, fields.email);
    const pricing = await this.pricing(caller, team, fields.pricingId);
    const title = this.title(fields.title) ?? `Invitation to ${team.name}`;
    const description = fields.description?.trim() || title;
    this.resourceId(caller, fields.resourceId);
    this.code(fields.code);
    const userName = fields.userName?.trim() || null;
    let invite: InviteRecord;
    try {
      invite = await this.deps.invites.insert({
        resource_id: caller.resourceId,
        code: generateCode(),
        dedupe_key: `${team._id}:${email}`,
        email,
        user_name: userName,
        title,
        description,
        team_id: team._id,
        pricing_id: pricing.id,
        activations_limit: 1,
        start_date: null,
        end_date: null,
        created_by: caller.userId,
      });
    } catch (error) {
      // A parallel request invited the same email: the unique key answers like the check.
      if (isDuplicateKey(error)) throw invalidTeamField('email', 'This email already has an invite for the team');
      throw inviteException();
    }
    await this.publishInvite(caller, invite);
    return invite;
  }

  async list(caller: Caller, teamId: number, request: PageRequest): Promise<Page<InviteRecord>> {
    const team = await this.deps.access.manageable(caller, teamId);
    const page = await this.deps.invites.pageForTeam(team._id, (request.page - 1) * request.limit, request.limit);
    return { rows: page.rows, paginator: toPaginator(request, page.total) };
  }

  get(caller: Caller, teamId: number, inviteId: number): Promise<InviteRecord> {
    return this.find(caller, teamId, inviteId);
  }

  /** PUT: the display fields (title, description, user_name); code, email and Pricing stay. */
  async update(caller: Caller, teamId: number, inviteId: number, fields: InviteChanges): Promise<InviteRecord> {
    const invite = await this.find(caller, teamId, inviteId);
    const changes: { title?: string; description?: string; user_name?: string | null } = {};
    const title = this.title(fields.title);
    if (title) changes.title = title;
    if (fields.description !== undefined) changes.description = fields.description.trim();
    if (fields.userName !== undefined) changes.user_name = fields.userName.trim() || null;
    return (await this.deps.invites.update(invite._id, changes)) ?? invite;
  }

  async delete(caller: Caller, teamId: number, inviteId: number): Promise<void> {
    await this.deps.invites.delete((await this.find(caller, teamId, inviteId))._id);
  }

  /**
   * Resend: its own guard, no revalidation, no dedupe; `result` is not delivery (document 2 C).
   * Besides the team's managers it admits the roles admin and root, the route prefix granting
   * nothing; a role counts only in the resource it was granted for (docs/adr/0239), so an admin
   * passes only for an invite of the caller's resource, root for any. The mail goes out in the
   * invite's own resource.
   */
  async resend(caller: Caller, teamId: number, inviteId: number): Promise<void> {
    const team = await this.deps.access.team(teamId);
    const invite = inviteId > 0 ? await this.deps.invites.findInTeam(team._id, inviteId) : null;
    if (!roleReaches(caller, invite)) await this.deps.access.guard(caller, team);
    if (!invite) throw inviteNotFound();
    await this.publishInvite({ ...caller, resourceId: invite.resource_id }, invite);
  }

  private async find(caller: Caller, teamId: number, inviteId: number): Promise<InviteRecord> {
    const team = await this.deps.access.manageable(caller, teamId);
    const invite = inviteId > 0 ? await this.deps.invites.findInTeam(team._id, inviteId) : null;
    if (!invite) throw inviteNotFound();
    return invite;
  }

  private async email(team: TeamRecord, raw: string): Promise<string> {
    const fail = (message: string) => invalidTeamField('email', message);
    if (raw.length > EMAIL_MAX) throw fail(`email must be at most ${EMAIL_MAX} characters`);
    const email = raw.trim().toLowerCase();
    if (!EMAIL_PATTERN.test(email)) throw fail('A valid email is required');
    if (await this.deps.invites.existsForTeamEmail(team._id, email)) throw fail('This email already has an invite for the team');
    if (!domainAllowed(email, team.allowed_domains ?? [])) throw fail('The email domain is not allowed for this team');
    return email;
  }

  /** An active Pricing of an active Plan of the resource, with a free seat and, if paid, a customer. */
  private async pricing(caller: Caller, team: TeamRecord, value: number): Promise<Pricing> {
    const fail = (message: string) => invalidTeamField('subscription_id', message);
    if (!(value > 0)) throw fail('subscription_id is required');
    let pricing: Pricing;
    try {
      pricing = await this.deps.pricings.getPricing({ resourceId: caller.resourceId, pricingId: value }, { idempotent: true });
    } catch {
      throw fail('subscription_id is not an active Pricing of the resource');
    }
    const limit = pricing.usersLimit ?? 0;
    if (limit > 0 && (await this.deps.members.countActiveWithPricing(team._id, pricing.id)) >= limit) {
      throw fail('No seats are left on this Pricing');
    }
    if (pricing.price > 0 && !(await this.ownerHasCustomer(caller, team))) throw fail('The team owner has no payment customer');
    return pricing;
  }

  private async ownerHasCustomer(caller: Caller, team: TeamRecord): Promise<boolean> {
    const owner = await this.deps.members.find(team._id, team.owner_id);
    return owner?.status === 'active' && (await this.deps.payments.hasCustomer(caller.resourceId, team.owner_id));
  }

  private title(value: string | undefined): string | undefined {
    if (value === undefined) return undefined;
    const title = value.trim();
    if (!title || title.length > TITLE_MAX) throw invalidTeamField('title', `title must be 1-${TITLE_MAX} characters`);
    return title;
  }

  /** Validated when set, not stored: it must name the selected resource (docs/adr/0133). */
  private resourceId(caller: Caller, value: string | undefined): void {
    if (value === undefined) return;
    if (value !== String(caller.resourceId)) {
      throw invalidTeamField('resource_id', 'resource_id must be the selected resource');
    }
  }

  /** Validated when set, never assigned: team invites always get a generated code. */
  private code(value: string | undefined): void {
    if (value === undefined) return;
    if (value.length < CODE_MIN || value.length > CODE_MAX) {
      throw invalidTeamField('code', `code must be ${CODE_MIN}-${CODE_MAX} characters`);
    }
  }

  private async publishInvite(caller: Caller, invite: InviteRecord): Promise<void> {
    try {
      await this.deps.events.publish({
        name: 'individual_in_team_invite',
        resourceId: caller.resourceId,
        payload: { invite_id: invite._id, team_id: invite.team_id, email: invite.email, code: invite.code, inviter_id: caller.userId },
      });
    } catch {
      throw inviteException();
    }
  }
}
