import { invalidEmail } from '@masthead/core/errors';
import type { EventPublisher } from '@masthead/core/events';
import { toPaginator, type PageRequest, type Paginator } from '@masthead/core/pagination';
import type { Caller } from '@masthead/proto/community/teams';
import { EMAIL_PATTERN, generateCode } from '../support/codes.js';
import type { MemberDirectory } from '../support/member-directory.js';
import type { TiEventService } from '../ti-events/ti-event.service.js';
import type { TicketRepository } from '../ti-events/ticket.repository.js';
import type { PassAttendance } from './pass-attendance.js';
import type { PassAssignmentRepository } from './pass-assignment.repository.js';
import type { PassAssignmentRecord } from './pass-assignment.schema.js';
import { invalidAssignId, invalidExtra, passAlreadyAssigned, passInviteNotFound, passNotFound, passUnassignLimit } from './pass.errors.js';
import type { PassRepository } from './pass.repository.js';
import type { PassRecord } from './pass.schema.js';

/** A pass with its assignment or invitation, as its owner reads it. */
export interface PassDetailView {
  pass: PassRecord;
  assignment: PassAssignmentRecord | null;
}

export interface UnassignLimitView {
  passId: number;
  canUnassign: boolean;
  limit: number;
  count: number;
}

/** An attendee's data: a JSON object of at most 16 KiB (a form's worth, not a document store). */
const EXTRA_MAX_BYTES = 16 * 1024;
const EMAIL_MAX = 254;

interface Deps {
  passes: PassRepository;
  assignments: PassAssignmentRepository;
  attendance: PassAttendance;
  tiEvents: TiEventService;
  tickets: TicketRepository;
  members: MemberDirectory;
  events: EventPublisher;
}

/** What owners do with their passes, and the event-wide reads (document 2 F; docs/adr/0152). */
export class PassService {
  constructor(private readonly deps: Deps) {}

  /** GET /user/ti-event/{id}/passes: every pass of an active event of the resource. */
  async listForEvent(resourceId: number, eventId: number, request: PageRequest): Promise<{ rows: PassRecord[]; paginator: Paginator }> {
    await this.deps.tiEvents.activeEvent(resourceId, eventId);
    const page = await this.deps.passes.pageForEvent(resourceId, eventId, (request.page - 1) * request.limit, request.limit);
    return { rows: page.rows, paginator: toPaginator(request, page.total) };
  }

  /** GET /user/ti-event/{id}/access: assignment is access; owning a pass is not. */
  async access(resourceId: number, userId: number, eventId: number): Promise<number[]> {
    await this.deps.tiEvents.activeEvent(resourceId, eventId);
    const passes = await this.deps.passes.listAssignedTo(resourceId, userId, eventId);
    return passes.map((pass) => pass._id);
  }

  async detail(caller: Caller, passId: number): Promise<PassDetailView> {
    const pass = await this.owned(caller, passId);
    return { pass, assignment: await this.deps.assignments.find(pass._id) };
  }

  /** PUT /user/pass/{id}/assign: an unassigned, uninvited pass to a member of the resource. */
  async assign(caller: Caller, passId: number, assignId: number): Promise<PassDetailView> {
    const pass = await this.owned(caller, passId);
    if (assignId <= 0 || !(await this.deps.members.isMember(caller.resourceId, assignId))) throw invalidAssignId();
    const assignment: PassAssignmentRecord = {
      _id: pass._id,
      resource_id: pass.resource_id,
      kind: 'direct',
      status: 'assigned',
      email: null,
      code: null,
      code_key: `direct:${pass._id}`,
      user_id: assignId,
      created_at: new Date(),
      assigned_at: new Date(),
    };
    if (!(await this.deps.assignments.insertIfAbsent(assignment))) throw passAlreadyAssigned();
    const email = assignId === caller.userId ? caller.email : null;
    return { pass: await this.deps.attendance.admit(pass, assignId, email), assignment };
  }

  /** GET /user/pass/{id}/unassign: whether the owner may take the pass back now, and how often. */
  async unassignLimit(caller: Caller, passId: number): Promise<UnassignLimitView> {
    const pass = await this.owned(caller, passId);
    const [ticket, assignment, count] = await Promise.all([
      this.deps.tickets.find(pass.resource_id, pass.ticket_id),
      this.deps.assignments.find(pass._id),
      this.deps.assignments.countUnassigns(pass._id),
    ]);
    const limit = ticket?.unassign_limit ?? 0;
    return { passId: pass._id, canUnassign: assignment?.status === 'assigned' && count < limit, limit, count };
  }

  /** POST /user/pass/{id}/invite: an invitation by email for an unassigned pass. */
  async invite(caller: Caller, passId: number, rawEmail: string): Promise<PassAssignmentRecord> {
    const pass = await this.owned(caller, passId);
    const email = rawEmail.trim().toLowerCase();
    if (!email || email.length > EMAIL_MAX || !EMAIL_PATTERN.test(email)) throw invalidEmail();
    const code = generateCode();
    const invitation: PassAssignmentRecord = {
      _id: pass._id,
      resource_id: pass.resource_id,
      kind: 'invite',
      status: 'pending',
      email,
      code,
      code_key: code.toLowerCase(),
      user_id: null,
      created_at: new Date(),
      assigned_at: null,
    };
    if (!(await this.deps.assignments.insertIfAbsent(invitation))) throw passAlreadyAssigned();
    await this.deps.events.publish({
      name: 'ti_event_pass_invite',
      resourceId: pass.resource_id,
      payload: { pass_id: pass._id, ti_event_id: pass.ti_event_id, owner_id: pass.owner_id, email, code },
    });
    return invitation;
  }

  /**
   * DELETE /user/pass/{id}/invite: a pending invitation is withdrawn; an assignment with an
   * attendee is ended, taking the pass back, which uses one of the ticket's unassigns.
   */
  async deleteInvitation(caller: Caller, passId: number): Promise<PassDetailView> {
    const pass = await this.owned(caller, passId);
    const assignment = await this.deps.assignments.find(pass._id);
    if (!assignment) throw passInviteNotFound();
    if (assignment.status === 'pending') {
      // Activated meanwhile: it is an assignment now, and its end counts.
      if (!(await this.deps.assignments.delete(assignment))) return this.deleteInvitation(caller, passId);
      await this.announceRemoval(pass, assignment);
      return { pass, assignment: null };
    }
    const ticket = await this.deps.tickets.find(pass.resource_id, pass.ticket_id);
    const claim = await this.deps.assignments.claimUnassign(pass._id, ticket?.unassign_limit ?? 0, assignment.user_id);
    if (!claim) throw passUnassignLimit();
    if (!(await this.deps.assignments.delete(assignment))) {
      await this.deps.assignments.releaseUnassign(claim.claimId);
      throw passInviteNotFound();
    }
    const updated = await this.deps.attendance.dismiss(pass, assignment.user_id);
    await this.announceRemoval(pass, assignment);
    return { pass: updated, assignment: null };
  }

  /** PUT /user/pass/{id}/extra: the attendee data, replaced as a whole. */
  async replaceExtra(caller: Caller, passId: number, extra: Record<string, unknown> | undefined): Promise<PassDetailView> {
    const pass = await this.owned(caller, passId);
    if (!extra || Buffer.byteLength(JSON.stringify(extra)) > EXTRA_MAX_BYTES) throw invalidExtra();
    const updated = (await this.deps.passes.update(pass.resource_id, pass._id, { extra })) ?? { ...pass, extra };
    await this.deps.events.publish({
      name: 'ti_event_pass_extra_updated',
      resourceId: pass.resource_id,
      payload: { pass_id: pass._id, owner_id: pass.owner_id, fields: Object.keys(extra) },
    });
    return { pass: updated, assignment: await this.deps.assignments.find(pass._id) };
  }

  private async announceRemoval(pass: PassRecord, assignment: PassAssignmentRecord): Promise<void> {
    await this.deps.events.publish({
      name: 'ti_event_pass_unassigned',
      resourceId: pass.resource_id,
      payload: {
        pass_id: pass._id,
        owner_id: pass.owner_id,
        assign_id: assignment.user_id,
        email: assignment.email,
        kind: assignment.kind,
      },
    });
  }

  /** A pass the caller owns in the resource; 404 ti_event_pass_not_found otherwise. */
  private async owned(caller: Caller, passId: number): Promise<PassRecord> {
    const pass = passId > 0 ? await this.deps.passes.find(caller.resourceId, passId) : null;
    if (!pass || pass.owner_id !== caller.userId) throw passNotFound();
    return pass;
  }
}
