import type { EventPublisher } from '@masthead/core/events';
import { isServiceError } from '@masthead/core/errors';
import type { Caller } from '@masthead/proto/community/teams';
import type { SlotRepository } from './slot.repository.js';
import type { SlotActivationRecord, SlotRecord } from './slot.schema.js';
import type { SlotGrant } from './slot-grant.js';
import { invalidActivationCode, slotActivationFull, slotForAnotherRecipient, slotNotFound } from './sponsorship.errors.js';
import type { SponsorshipRepository } from './sponsorship.repository.js';
import type { SponsorshipRecord } from './sponsorship.schema.js';

/** A slot as its recipient sees it, with the sponsorship (and the seats taken). */
export interface RecipientSlotView {
  slot: SlotRecord;
  sponsorship: SponsorshipRecord;
  usedSeats: number;
}

/** What activating (or turning off the sponsor's payment for) a seat answers. */
export interface SlotActivationView {
  activation: SlotActivationRecord;
  sponsorship: SponsorshipRecord;
}

interface Deps {
  sponsorships: SponsorshipRepository;
  slots: SlotRepository;
  grant: SlotGrant;
  events: EventPublisher;
}

/** The recipient's tasks of document 2 E (named; docs/adr/0155). */
export class RecipientService {
  constructor(private readonly deps: Deps) {}

  /** GET /recipient/sponsored-subscriptions/slots: slots the caller's email was invited to and that they have not activated. */
  async list(caller: Caller): Promise<RecipientSlotView[]> {
    const [slots, mine] = await Promise.all([
      this.deps.slots.listForEmail(caller.resourceId, caller.email.toLowerCase()),
      this.deps.slots.activationsOfUser(caller.resourceId, caller.userId),
    ]);
    const activated = new Set(mine.map((activation) => activation.slot_id));
    return this.withSponsorships(
      caller.resourceId,
      slots.filter((slot) => !activated.has(slot._id)),
    );
  }

  /** GET /recipient/sponsored-subscriptions/slots/{code}: 404 sponsor_slot_not_found for a code unknown in the resource. */
  async preview(caller: Caller, code: string): Promise<RecipientSlotView> {
    const slot = code ? await this.deps.slots.findByCode(caller.resourceId, code) : null;
    const [view] = slot ? await this.withSponsorships(caller.resourceId, [slot]) : [];
    if (!view) throw slotNotFound();
    return view;
  }

  /**
   * PUT /recipient/sponsored-subscriptions/slots/activate: claims a seat (a unique insert, so a
   * slot never gives more seats than it has), then grants the sponsorship's Pricing through
   * catalog; the seat and the grant succeed or fail together (SlotGrant). A repeat by a recipient
   * who holds a seat answers it, finishing its grant if that is pending.
   */
  async activate(caller: Caller, code: string): Promise<SlotActivationView> {
    if (!code) throw invalidActivationCode();
    const slot = await this.deps.slots.findByCode(caller.resourceId, code);
    const sponsorship = slot && (await this.deps.sponsorships.find(caller.resourceId, slot.sponsorship_id));
    if (!slot || !sponsorship) throw slotNotFound();
    if (slot.seats === 1 && slot.recipient_emails.length > 0 && !slot.recipient_emails.includes(caller.email.toLowerCase())) {
      throw slotForAnotherRecipient();
    }
    // A repeat by a recipient who holds a seat answers it (a full slot would refuse a new claim).
    const held = await this.deps.slots.activation(slot._id, caller.userId);
    const claim = held
      ? { existing: held }
      : await this.deps.slots.claimSeat(
          {
            slot_id: slot._id,
            sponsorship_id: sponsorship._id,
            resource_id: slot.resource_id,
            user_id: caller.userId,
            membership_id: null,
            is_paying_by_sponsor: true,
            is_allowed_next_subscription: false,
          },
          slot.seats,
        );
    if ('full' in claim) throw slotActivationFull();
    const activation = 'existing' in claim ? claim.existing : claim.row;
    if (activation.membership_id !== null) return { activation, sponsorship };
    return { activation: await this.deps.grant.finish(activation, sponsorship), sponsorship };
  }

  /**
   * The pending-grant pass (docs/adr/0233): seats whose grant is still pending, claimed before
   * `claimedBefore`, are granted — or freed when their sponsorship is gone. Answers how many
   * were granted.
   */
  async finishPending(claimedBefore: Date, limit: number): Promise<number> {
    let finished = 0;
    for (const activation of await this.deps.slots.pendingActivations(claimedBefore, limit)) {
      const sponsorship = await this.deps.sponsorships.find(activation.resource_id, activation.sponsorship_id);
      if (!sponsorship) {
        await this.deps.grant.release(activation);
        continue;
      }
      try {
        await this.deps.grant.finish(activation, sponsorship);
        finished++;
      } catch (error) {
        // A grant still unknown waits for the next pass; a refusal freed its seat.
        if (!isServiceError(error)) throw error;
      }
    }
    return finished;
  }

  /** PUT .../slots/{slot_id}/sponsor/turn-off: the sponsor stops paying for the caller's membership (repeatable). */
  async turnOffSponsorPayment(caller: Caller, slotId: number): Promise<SlotActivationView> {
    const activation = slotId > 0 ? await this.deps.slots.activation(slotId, caller.userId) : null;
    const sponsorship = activation && (await this.deps.sponsorships.find(caller.resourceId, activation.sponsorship_id));
    if (!activation || !sponsorship || activation.resource_id !== caller.resourceId) throw slotNotFound();
    if (activation.is_paying_by_sponsor) {
      await this.deps.slots.updateActivation(activation._id, { is_paying_by_sponsor: false });
      await this.deps.events.publish({
        name: 'sponsor_payment_turned_off',
        resourceId: sponsorship.resource_id,
        payload: { slot_id: slotId, sponsorship_id: sponsorship._id, user_id: caller.userId, membership_id: activation.membership_id },
      });
    }
    return { activation: { ...activation, is_paying_by_sponsor: false }, sponsorship };
  }

  private async withSponsorships(resourceId: number, slots: SlotRecord[]): Promise<RecipientSlotView[]> {
    const ids = [...new Set(slots.map((slot) => slot.sponsorship_id))];
    const [sponsorships, activations] = await Promise.all([
      this.deps.sponsorships.findMany(resourceId, ids),
      this.deps.slots.activationsOfSponsorships(ids),
    ]);
    return slots.flatMap((slot) => {
      const sponsorship = sponsorships.find((candidate) => candidate._id === slot.sponsorship_id);
      const usedSeats = activations.filter((activation) => activation.slot_id === slot._id).length;
      return sponsorship ? [{ slot, sponsorship, usedSeats }] : [];
    });
  }
}
