import type { EventPublisher } from '@masthead/core/events';
import type { ClientOf } from '@masthead/core/clients';
import type { Caller } from '@masthead/proto/community/teams';
import { EMAIL_PATTERN, generateCode } from '../support/codes.js';
import type { SlotRepository } from './slot.repository.js';
import type { SlotRecord } from './slot.schema.js';
import { invalidSponsorshipField, slotFull, slotNotFound, slotNotMultiSeat } from './sponsorship.errors.js';
import type { SponsorshipRepository } from './sponsorship.repository.js';
import type { SlotView } from './sponsorship.views.js';

const EMAIL_MAX = 254;

interface Deps {
  sponsorships: SponsorshipRepository;
  slots: SlotRepository;
  memberships: ClientOf<'memberships'>;
  events: EventPublisher;
}

/** The sponsor's slot operations (document 2 E, named; docs/adr/0155). */
export class SlotService {
  constructor(private readonly deps: Deps) {}

  /** GET /sponsor/sponsored-subscriptions/slots/{slot_id}: an owned slot with its recipients. */
  async get(caller: Caller, slotId: number): Promise<SlotView> {
    const slot = await this.owned(caller, slotId);
    return this.view(slot);
  }

  /**
   * PUT .../slots/{slot_id}/invitation: invites (or notifies again) a recipient by email. A
   * single-seat slot is bound to the one recipient it was last given to; a multi-seat slot
   * collects its invitees. The code travels to the mail sender in `sponsor_slot_invitation`.
   */
  async invite(caller: Caller, slotId: number, rawEmail: string): Promise<SlotView> {
    const email = rawEmail.trim().toLowerCase();
    if (!email || email.length > EMAIL_MAX || !EMAIL_PATTERN.test(email)) {
      throw invalidSponsorshipField('recipient_email', 'recipient_email must be a valid email');
    }
    const slot = await this.owned(caller, slotId);
    const { activations } = await this.view(slot);
    if (activations.length >= slot.seats) throw slotFull();
    const recipients = slot.seats === 1 ? [email] : [...new Set([...slot.recipient_emails, email])];
    const updated = (await this.deps.slots.update(slot._id, { recipient_emails: recipients })) ?? { ...slot, recipient_emails: recipients };
    await this.deps.events.publish({
      name: 'sponsor_slot_invitation',
      resourceId: slot.resource_id,
      payload: {
        slot_id: slot._id,
        sponsorship_id: slot.sponsorship_id,
        sponsor_id: slot.sponsor_id,
        recipient_email: email,
        code: slot.code,
      },
    });
    return { slot: updated, activations };
  }

  /**
   * PUT .../slots/{slot_id}/clear: a multi-seat slot loses its recipients — their memberships
   * are detached through catalog (best effort, as the original's unchecked saves), their seats
   * freed, its invitees forgotten — and gets a new code, so the old one admits no one.
   */
  async clear(caller: Caller, slotId: number): Promise<SlotView> {
    const slot = await this.owned(caller, slotId);
    if (slot.seats <= 1) throw slotNotMultiSeat();
    const { activations } = await this.view(slot);
    await Promise.allSettled(
      activations
        .filter((activation) => activation.membership_id !== null)
        .map((activation) =>
          this.deps.memberships.detachMembership({
            resourceId: slot.resource_id,
            userId: activation.user_id,
            membershipId: activation.membership_id!,
          }),
        ),
    );
    await this.deps.slots.deleteActivationsOfSlot(slot._id);
    const code = generateCode();
    const cleared = (await this.deps.slots.update(slot._id, { recipient_emails: [], code, code_key: code.toLowerCase() })) ?? slot;
    await this.deps.events.publish({
      name: 'sponsor_slot_cleared',
      resourceId: slot.resource_id,
      payload: {
        slot_id: slot._id,
        sponsorship_id: slot.sponsorship_id,
        sponsor_id: slot.sponsor_id,
        user_ids: activations.map((activation) => activation.user_id),
        membership_ids: activations.flatMap((activation) => (activation.membership_id === null ? [] : [activation.membership_id])),
      },
    });
    return { slot: cleared, activations: [] };
  }

  private async view(slot: SlotRecord): Promise<SlotView> {
    const activations = await this.deps.slots.activationsOfSponsorships([slot.sponsorship_id]);
    return { slot, activations: activations.filter((activation) => activation.slot_id === slot._id) };
  }

  /** A slot of a sponsorship the caller sponsors in the resource; 404 sponsor_slot_not_found otherwise. */
  private async owned(caller: Caller, slotId: number): Promise<SlotRecord> {
    const slot = slotId > 0 ? await this.deps.slots.find(caller.resourceId, slotId) : null;
    if (!slot || slot.sponsor_id !== caller.userId) throw slotNotFound();
    return slot;
  }
}
