import { isServiceError, parseOrThrow, subscriptionNotFound } from '@masthead/core/errors';
import type { EventPublisher } from '@masthead/core/events';
import { isDuplicateKey } from '@masthead/core/mongo';
import type { ClientOf } from '@masthead/core/clients';
import type { Pricing } from '@masthead/proto/catalog';
import type { CreateSponsorshipRequest, RevokeSponsorshipRequest } from '@masthead/proto/community/sponsorships';
import { z } from 'zod';
import { generateCode } from '../support/codes.js';
import { revokeCommand } from '../support/revocation-command.js';
import type { SlotRepository } from './slot.repository.js';
import type { SlotActivationRecord } from './slot.schema.js';
import type { SponsorshipRevocationRepository } from './sponsorship-revocation.repository.js';
import type { RevokedSponsorshipView, SponsorshipRevocation } from './sponsorship-revocation.js';
import { sponsorshipRevoked } from './sponsorship.errors.js';
import type { SponsorshipRepository } from './sponsorship.repository.js';
import type { SponsorshipRecord } from './sponsorship.schema.js';

/** Billing's command (400 invalid_<field>, ADR 0109); the limits keep one purchase a purchase. */
const createCommand = z.object({
  resourceId: z.number().int().positive('resource_id is required'),
  sponsorId: z.number().int().positive('sponsor_id is required'),
  pricingId: z.number().int().positive('pricing_id is required'),
  purchaseKey: z.string().trim().min(1, 'purchase_key is required'),
  slots: z.number().int().min(1, 'slots must be between 1 and 100').max(100, 'slots must be between 1 and 100'),
  seatsPerSlot: z.number().int().min(1, 'seats_per_slot must be between 1 and 1000').max(1000, 'seats_per_slot must be between 1 and 1000'),
  title: z.string().trim().max(128, 'title is at most 128 characters'),
  description: z.string().trim().max(512, 'description is at most 512 characters'),
  isPayingBySponsor: z.boolean(),
  autorenew: z.boolean(),
});

/** Who pays a sponsored membership's renewal (billing's question). */
export interface MembershipSponsorshipView {
  activation: SlotActivationRecord;
  sponsorship: SponsorshipRecord;
}

interface Deps {
  sponsorships: SponsorshipRepository;
  slots: SlotRepository;
  pricings: ClientOf<'pricings'>;
  revocations: SponsorshipRevocationRepository;
  revocation: SponsorshipRevocation;
  events: EventPublisher;
}

/** Billing's side of sponsorships (docs/adr/0156): creation at purchase, the payer at renewal. */
export class SponsorshipPurchaseService {
  constructor(private readonly deps: Deps) {}

  /**
   * The sponsorship of a gift or sponsorship purchase, with its slots. Idempotent by purchase key:
   * a repeat (a retried checkout, a crash between the rows) answers the first sponsorship and
   * adds only the slots that are missing.
   */
  async create(request: CreateSponsorshipRequest): Promise<SponsorshipRecord> {
    const command = parseOrThrow(createCommand, request);
    // A revoked line makes no sponsorship (docs/adr/0234): checked before, and after, since a
    // revocation may run meanwhile — then what was made is taken back.
    if (await this.deps.revocations.find(command.purchaseKey)) throw sponsorshipRevoked();
    const sponsorship = await this.createOnce(command);
    const revoked = await this.deps.revocations.find(command.purchaseKey);
    if (revoked) {
      await this.deps.revocation.revoke({ resourceId: revoked.resource_id, purchaseKey: revoked._id, reason: revoked.reason });
      throw sponsorshipRevoked();
    }
    return sponsorship;
  }

  /** A refunded or lost-dispute gift or sponsorship line (docs/adr/0234). */
  revoke(request: RevokeSponsorshipRequest): Promise<RevokedSponsorshipView> {
    return this.deps.revocation.revoke(parseOrThrow(revokeCommand, request));
  }

  private async createOnce(command: z.output<typeof createCommand>): Promise<SponsorshipRecord> {
    const existing = await this.deps.sponsorships.findByPurchase(command.purchaseKey);
    const sponsorship = existing ?? (await this.insert(command, await this.pricing(command.resourceId, command.pricingId)));
    for (let index = 0; index < sponsorship.slot_count; index++) {
      const code = generateCode();
      await this.deps.slots.insertIfAbsent({
        sponsorship_id: sponsorship._id,
        resource_id: sponsorship.resource_id,
        sponsor_id: sponsorship.sponsor_id,
        slot_key: `${sponsorship._id}:${index}`,
        code,
        code_key: code.toLowerCase(),
        recipient_emails: [],
        seats: sponsorship.seats_per_slot,
      });
    }
    return sponsorship;
  }

  /** The sponsorship a membership came from, or null for a membership bought or granted otherwise. */
  async ofMembership(resourceId: number, membershipId: number): Promise<MembershipSponsorshipView | null> {
    const activation = membershipId > 0 ? await this.deps.slots.activationOfMembership(resourceId, membershipId) : null;
    const sponsorship = activation && (await this.deps.sponsorships.find(resourceId, activation.sponsorship_id));
    return activation && sponsorship ? { activation, sponsorship } : null;
  }

  private async insert(command: z.output<typeof createCommand>, pricing: Pricing): Promise<SponsorshipRecord> {
    try {
      const created = await this.deps.sponsorships.insert({
        resource_id: command.resourceId,
        sponsor_id: command.sponsorId,
        pricing_id: pricing.id,
        purchase_key: command.purchaseKey,
        title: command.title || pricing.title.slice(0, 128),
        description: command.description,
        is_paying_by_sponsor: command.isPayingBySponsor,
        autorenew: command.autorenew,
        slot_count: command.slots,
        seats_per_slot: command.seatsPerSlot,
      });
      await this.deps.events.publish({
        name: 'sponsorship_created',
        resourceId: created.resource_id,
        payload: {
          sponsorship_id: created._id,
          sponsor_id: created.sponsor_id,
          pricing_id: created.pricing_id,
          purchase_key: created.purchase_key,
        },
      });
      return created;
    } catch (error) {
      // A parallel creation for the same purchase won the unique key: answer its sponsorship.
      const winner = isDuplicateKey(error) ? await this.deps.sponsorships.findByPurchase(command.purchaseKey) : null;
      if (!winner) throw error;
      return winner;
    }
  }

  private async pricing(resourceId: number, pricingId: number): Promise<Pricing> {
    try {
      return await this.deps.pricings.getPricing({ resourceId, pricingId }, { idempotent: true });
    } catch (error) {
      // Catalog's not-found for a Pricing of no resource or another; an outage stays an error.
      if (isServiceError(error) && error.status === 404) throw subscriptionNotFound();
      throw error;
    }
  }
}
