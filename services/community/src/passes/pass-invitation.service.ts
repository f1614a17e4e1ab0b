import type { Caller } from '@masthead/proto/community/teams';
import type { TiEventRepository } from '../ti-events/ti-event.repository.js';
import type { TiEventRecord } from '../ti-events/ti-event.schema.js';
import type { TicketRepository } from '../ti-events/ticket.repository.js';
import type { TicketRecord } from '../ti-events/ticket.schema.js';
import type { PassAttendance } from './pass-attendance.js';
import type { PassAssignmentRepository } from './pass-assignment.repository.js';
import type { PassAssignmentRecord } from './pass-assignment.schema.js';
import { invalidPassInvite, invalidPassInvitePreview } from './pass.errors.js';
import type { PassRepository } from './pass.repository.js';
import type { PassRecord } from './pass.schema.js';
import type { PassDetailView } from './pass.service.js';

export interface PassInvitePreviewView {
  invitation: PassAssignmentRecord;
  pass: PassRecord;
  event: TiEventRecord;
  ticket: TicketRecord;
}

interface Deps {
  passes: PassRepository;
  assignments: PassAssignmentRepository;
  attendance: PassAttendance;
  events: TiEventRepository;
  tickets: TicketRepository;
}

/** The recipient's side of a pass invitation: preview and activation (docs/adr/0152). */
export class PassInvitationService {
  constructor(private readonly deps: Deps) {}

  /** POST /ti-event/pass/invite-validation: a pending invitation of the resource; 409 invalid_invite. */
  async preview(resourceId: number, code: string): Promise<PassInvitePreviewView> {
    const found = await this.pending(resourceId, code);
    if (!found) throw invalidPassInvitePreview();
    const [event, ticket] = await Promise.all([
      this.deps.events.find(resourceId, found.pass.ti_event_id),
      this.deps.tickets.find(resourceId, found.pass.ticket_id),
    ]);
    if (!event || !ticket) throw invalidPassInvitePreview();
    return { ...found, event, ticket };
  }

  /**
   * POST /ti-event/pass/invite-activation: the member whose email the invitation names becomes
   * the attendee. A repeat by that member answers the pass; anything else is 422 invalid_invite.
   */
  async activate(caller: Caller, code: string): Promise<PassDetailView> {
    const invitation = code ? await this.deps.assignments.findByCode(caller.resourceId, code) : null;
    if (!invitation || invitation.kind !== 'invite' || invitation.email !== caller.email.toLowerCase()) throw invalidPassInvite();
    const pass = await this.deps.passes.find(caller.resourceId, invitation._id);
    if (!pass) throw invalidPassInvite();
    if (invitation.status === 'assigned') {
      if (invitation.user_id !== caller.userId) throw invalidPassInvite();
      return { pass, assignment: invitation };
    }
    await this.deps.assignments.markAssigned(pass._id, invitation.code_key, caller.userId);
    // FerretDB applies a guarded update read-then-write: read back that this activation won.
    const won = await this.deps.assignments.find(pass._id);
    if (won?.code_key !== invitation.code_key || won.status !== 'assigned' || won.user_id !== caller.userId) throw invalidPassInvite();
    const admitted = await this.deps.attendance.admit(pass, caller.userId, invitation.email);
    // The owner may have withdrawn the invitation while the pass was being assigned.
    if (!(await this.deps.assignments.find(pass._id))) {
      await this.deps.attendance.dismiss(admitted, caller.userId);
      throw invalidPassInvite();
    }
    return { pass: admitted, assignment: won };
  }

  private async pending(resourceId: number, code: string): Promise<{ invitation: PassAssignmentRecord; pass: PassRecord } | null> {
    const invitation = code ? await this.deps.assignments.findByCode(resourceId, code) : null;
    if (invitation?.kind !== 'invite' || invitation.status !== 'pending') return null;
    const pass = await this.deps.passes.find(resourceId, invitation._id);
    return pass ? { invitation, pass } : null;
  }
}
