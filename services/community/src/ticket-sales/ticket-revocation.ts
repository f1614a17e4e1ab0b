import type { EventPublisher } from '@masthead/core/events';
import type { PassAssignmentRepository } from '../passes/pass-assignment.repository.js';
import type { PassRepository } from '../passes/pass.repository.js';
import type { PassRecord } from '../passes/pass.schema.js';
import type { PassTokenRepository } from '../passes/pass-token.repository.js';
import type { InventoryRepository } from './inventory.repository.js';
import type { RevocationRepository } from './revocation.repository.js';
import type { RevocationReason } from '../support/revocation-command.js';

interface Deps {
  passes: PassRepository;
  assignments: PassAssignmentRepository;
  tokens: PassTokenRepository;
  inventory: InventoryRepository;
  revocations: RevocationRepository;
  publisher: EventPublisher;
}

/**
 * Takes back what a refunded or lost-dispute purchase line issued (docs/adr/0234): its passes
 * end — each kept in ti_event_pass_revocations, its assignment or invitation and its
 * authorization tokens gone — and its units are free to be sold again. The key is marked first,
 * so no confirmation issues passes for it afterwards. A repeat ends nothing twice and announces
 * nothing again: each pass's archive is a unique insert, each assignment's delete is one.
 */
export class TicketRevocation {
  constructor(private readonly deps: Deps) {}

  /** Answers the passes this call ended. */
  async revoke(resourceId: number, purchaseKey: string, reason: RevocationReason): Promise<PassRecord[]> {
    await this.deps.revocations.markPurchase(purchaseKey, resourceId, reason);
    const passes = (await this.deps.passes.listForPurchase(purchaseKey)).filter((pass) => pass.resource_id === resourceId);
    const ended: PassRecord[] = [];
    for (const pass of passes) if (await this.end(pass, reason)) ended.push(pass);
    await this.deps.inventory.free(purchaseKey);
    const first = ended[0];
    if (first) {
      await this.deps.publisher.publish({
        name: 'ti_event_passes_revoked',
        resourceId,
        payload: {
          purchase_key: purchaseKey,
          ti_event_id: first.ti_event_id,
          ticket_id: first.ticket_id,
          owner_id: first.owner_id,
          pass_ids: ended.map((pass) => pass._id),
          reason,
        },
      });
    }
    return ended;
  }

  /** One pass: true for the call that archived it first. Every step repeats harmlessly after a crash. */
  private async end(pass: PassRecord, reason: RevocationReason): Promise<boolean> {
    const first = await this.deps.revocations.archivePass(pass, reason);
    const assignment = await this.deps.assignments.find(pass._id);
    if (assignment && (await this.deps.assignments.delete(assignment))) {
      // The attendee (or the invitee) loses the pass as when its owner ends the assignment.
      await this.deps.publisher.publish({
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
    await this.deps.tokens.revokeForPass(pass._id);
    await this.deps.passes.delete(pass.resource_id, pass._id);
    return first;
  }
}
