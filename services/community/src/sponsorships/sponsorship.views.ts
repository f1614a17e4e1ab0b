import type { ClientOf } from '@masthead/core/clients';
import type { Membership } from '@masthead/proto/catalog';
import type { SlotRepository } from './slot.repository.js';
import type { SlotActivationRecord, SlotRecord } from './slot.schema.js';
import type { SponsorshipRecord } from './sponsorship.schema.js';

/** A slot with its activations (the seats taken). */
export interface SlotView {
  slot: SlotRecord;
  activations: SlotActivationRecord[];
}

/** A sponsorship as its sponsor reads it: slots, and the first associated membership. */
export interface SponsorshipView {
  sponsorship: SponsorshipRecord;
  slots: SlotView[];
  /** The earliest activation with a membership, and that membership as catalog holds it now. */
  first: SlotActivationRecord | null;
  membership: Membership | null;
  /** The first associated membership's, else what the purchase asked for. */
  autorenew: boolean;
  isAllowedNextSubscription: boolean;
}

interface Deps {
  slots: SlotRepository;
  memberships: ClientOf<'memberships'>;
}

/**
 * Builds sponsorship views in a fixed number of reads: one for the slots, one for the
 * activations, and one catalog read per distinct recipient of a first associated membership.
 */
export class SponsorshipViews {
  constructor(private readonly deps: Deps) {}

  async build(sponsorships: SponsorshipRecord[]): Promise<SponsorshipView[]> {
    const ids = sponsorships.map((sponsorship) => sponsorship._id);
    const [slots, activations] = await Promise.all([
      this.deps.slots.listForSponsorships(ids),
      this.deps.slots.activationsOfSponsorships(ids),
    ]);
    const firsts = new Map<number, SlotActivationRecord>();
    for (const activation of activations) {
      if (activation.membership_id !== null && !firsts.has(activation.sponsorship_id)) firsts.set(activation.sponsorship_id, activation);
    }
    const memberships = await this.memberships(sponsorships[0]?.resource_id ?? 0, [...firsts.values()]);
    return sponsorships.map((sponsorship) => {
      const first = firsts.get(sponsorship._id) ?? null;
      const membership = (first?.membership_id && memberships.get(first.membership_id)) || null;
      return {
        sponsorship,
        slots: slots
          .filter((slot) => slot.sponsorship_id === sponsorship._id)
          .map((slot) => ({ slot, activations: activations.filter((activation) => activation.slot_id === slot._id) })),
        first,
        membership,
        autorenew: membership?.autorenew ?? sponsorship.autorenew,
        isAllowedNextSubscription: first?.is_allowed_next_subscription ?? false,
      };
    });
  }

  async one(sponsorship: SponsorshipRecord): Promise<SponsorshipView> {
    const [view] = await this.build([sponsorship]);
    if (!view) throw new Error('a view of one sponsorship is missing');
    return view;
  }

  /** The recipients' current memberships by ID (a detached one is no longer there). */
  private async memberships(resourceId: number, firsts: SlotActivationRecord[]): Promise<Map<number, Membership>> {
    const users = [...new Set(firsts.map((activation) => activation.user_id))];
    const lists = await Promise.all(
      users.map((userId) => this.deps.memberships.listMemberships({ resourceId, userId, includeHistory: false }, { idempotent: true })),
    );
    return new Map(lists.flatMap((list) => list.items.map((membership) => [membership.id, membership] as const)));
  }
}
