import type { RecipientSlot, Slot, SlotActivation, Sponsorship } from '@masthead/proto/community/sponsorships';
import { serializeMembership } from './catalog.js';

/** Sponsorships and slots (document 2 E; docs/adr/0154, 0155): the only place their JSON is spelled. */

type Json = Record<string, unknown>;

/** The base slot: no recipient or parent expansion (document 2 E, GET .../slots). */
export const serializeSlot = (slot: Slot): Json => ({
  id: slot.id,
  sponsored_subscription_id: slot.sponsorshipId,
  activation_code: slot.code,
  recipient_emails: slot.recipientEmails,
  seats: slot.seats,
  used_seats: slot.usedSeats,
  created_at: slot.createdAt,
  updated_at: slot.updatedAt,
});

/** One owned slot with the recipients holding its seats. */
export const serializeSlotDetail = (slot: Slot): Json => ({
  ...serializeSlot(slot),
  recipients: slot.recipients.map((recipient) => ({
    user_id: recipient.userId,
    user_subscription_id: recipient.membershipId ?? null,
    is_paying_by_sponsor: recipient.isPayingBySponsor,
    activated_at: recipient.activatedAt,
  })),
});

/** The parent record of document 2 E (`subscription_id` is the Pricing), without its slots. */
const serializeParent = (sponsorship: Sponsorship): Json => ({
  id: sponsorship.id,
  sponsor_id: sponsorship.sponsorId,
  subscription_id: sponsorship.pricingId,
  title: sponsorship.title,
  description: sponsorship.description,
  is_paying_by_sponsor: sponsorship.isPayingBySponsor,
  autorenew: sponsorship.autorenew,
  is_allowed_next_subscription: sponsorship.isAllowedNextSubscription,
  created_at: sponsorship.createdAt,
  updated_at: sponsorship.updatedAt,
});

/** The expanded sponsor record of the list: the parent with its slots. */
export const serializeSponsorship = (sponsorship: Sponsorship): Json => ({
  ...serializeParent(sponsorship),
  slots: sponsorship.slots.map(serializeSlot),
});

/** GET one and PUT: the expanded record with the first associated membership (null before any). */
export const serializeSponsorshipItem = (sponsorship: Sponsorship, admin: boolean): Json => ({
  ...serializeSponsorship(sponsorship),
  user_subscription: sponsorship.membership ? serializeMembership(sponsorship.membership, admin) : null,
});

/** A slot as its recipient sees it: the base slot and the sponsorship it comes from. */
export const serializeRecipientSlot = ({ slot, sponsorship }: RecipientSlot): Json => ({
  ...(slot ? serializeSlot(slot) : {}),
  sponsored_subscription: sponsorship ? serializeParent(sponsorship) : null,
});

/** Activation and turn-off: the seat's sponsorship, Pricing and membership, and who pays. */
export const serializeSlotActivation = (activation: SlotActivation): Json => ({
  result: true,
  slot_id: activation.slotId,
  sponsored_subscription_id: activation.sponsorshipId,
  subscription_id: activation.pricingId,
  user_subscription_id: activation.membershipId ?? null,
  is_paying_by_sponsor: activation.isPayingBySponsor,
});
