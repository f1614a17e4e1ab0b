import { isServiceError } from '@masthead/core/errors';
import type { EventPublisher } from '@masthead/core/events';
import type { ClientOf } from '@masthead/core/clients';
import type { UpdateSponsorshipRequest } from '@masthead/proto/community/sponsorships';
import type { Caller } from '@masthead/proto/community/teams';
import type { SlotRepository } from './slot.repository.js';
import {
  invalidSponsorshipField,
  sponsorshipNotFound,
  sponsorshipUpdateFailed,
  sponsorshipUpdateNotFound,
  sponsorshipWithoutMembership,
} from './sponsorship.errors.js';
import type { SponsorshipRepository } from './sponsorship.repository.js';
import type { SponsorshipRecord } from './sponsorship.schema.js';
import type { SlotView, SponsorshipView, SponsorshipViews } from './sponsorship.views.js';

/** Document 2 Limits: sponsorship title at most 128, description at most 512 characters. */
const TITLE_MAX = 128;
const DESCRIPTION_MAX = 512;
const sanitize = (value: string) => value.replace(/<[^>]*>/g, '').trim();

type Changes = Omit<UpdateSponsorshipRequest, 'caller' | 'sponsorshipId'>;

interface Deps {
  sponsorships: SponsorshipRepository;
  slots: SlotRepository;
  views: SponsorshipViews;
  memberships: ClientOf<'memberships'>;
  events: EventPublisher;
}

/** The sponsor's reads and PUT of document 2 E (docs/adr/0154). */
export class SponsorshipService {
  constructor(private readonly deps: Deps) {}

  /** GET /sponsor/sponsored-subscriptions: the caller's, newest first, with slots. */
  async list(caller: Caller): Promise<SponsorshipView[]> {
    return this.deps.views.build(await this.deps.sponsorships.listForSponsor(caller.resourceId, caller.userId));
  }

  /** GET /sponsor/sponsored-subscriptions/{id}: 404 sponsor_subscription_error for anyone else's. */
  async get(caller: Caller, id: number): Promise<SponsorshipView> {
    return this.deps.views.one(await this.owned(caller, id, sponsorshipNotFound));
  }

  /** GET .../{id}/slots: the slots, newest first. */
  async slots(caller: Caller, id: number): Promise<SlotView[]> {
    return (await this.get(caller, id)).slots;
  }

  /**
   * PUT /sponsor/sponsored-subscriptions/{id} (document 2 E): in order, without a transaction,
   * (1) the text and its event, (2) the payer flag and its event, (3) the first associated
   * membership's autorenew and its event, (4) its is_allowed_next_subscription and its event.
   * An unchanged flag skips its step; a failing step leaves the earlier ones saved.
   */
  async update(caller: Caller, id: number, changes: Changes): Promise<SponsorshipView> {
    const title = this.text('title', changes.title, TITLE_MAX);
    const description = this.text('description', changes.description, DESCRIPTION_MAX);
    let sponsorship = await this.owned(caller, id, sponsorshipUpdateNotFound);
    let view = await this.deps.views.one(sponsorship);
    const base = { sponsorship_id: sponsorship._id, sponsor_id: sponsorship.sponsor_id };

    if (title !== undefined || description !== undefined) {
      sponsorship = await this.step(async () => {
        const saved = await this.save(sponsorship, {
          ...(title === undefined ? {} : { title }),
          ...(description === undefined ? {} : { description }),
        });
        await this.deps.events.publish({
          name: 'sponsor_subscription_text_updated',
          resourceId: saved.resource_id,
          payload: { ...base, title: saved.title, description: saved.description },
        });
        return saved;
      });
    }
    const payer = changes.isPayingBySponsor;
    if (payer !== undefined && payer !== sponsorship.is_paying_by_sponsor) {
      sponsorship = await this.step(async () => {
        const saved = await this.save(sponsorship, { is_paying_by_sponsor: payer });
        await this.deps.events.publish({
          name: 'sponsor_subscription_payer_changed',
          resourceId: saved.resource_id,
          payload: { ...base, is_paying_by_sponsor: payer },
        });
        return saved;
      });
    }
    const autorenew = changes.autorenew;
    if (autorenew !== undefined && autorenew !== view.autorenew) {
      const { first, membership } = this.associated(view);
      await this.step(async () => {
        await this.deps.memberships.setMembershipRenewal({
          resourceId: sponsorship.resource_id,
          userId: first.user_id,
          membershipId: membership,
          autorenew,
        });
        // The sponsorship keeps the flag too: later activations are granted with it.
        sponsorship = await this.save(sponsorship, { autorenew });
        await this.deps.events.publish({
          name: 'sponsor_subscription_autorenew_changed',
          resourceId: sponsorship.resource_id,
          payload: { ...base, membership_id: membership, autorenew },
        });
      });
    }
    const next = changes.isAllowedNextSubscription;
    if (next !== undefined && next !== view.isAllowedNextSubscription) {
      const { first, membership } = this.associated(view);
      await this.step(async () => {
        await this.deps.slots.updateActivation(first._id, { is_allowed_next_subscription: next });
        await this.deps.events.publish({
          name: 'sponsor_subscription_next_subscription_changed',
          resourceId: sponsorship.resource_id,
          payload: { ...base, membership_id: membership, is_allowed_next_subscription: next },
        });
      });
    }
    view = await this.deps.views.one(sponsorship);
    return view;
  }

  /** A text field as sent: absent stays; longer than its limit (after sanitizing) is 409 invalid_<field>. */
  private text(field: 'title' | 'description', value: string | undefined, max: number): string | undefined {
    if (value === undefined) return undefined;
    const clean = sanitize(value);
    // Document 2 E: null or empty text does not erase.
    if (!clean) return undefined;
    if (clean.length > max) throw invalidSponsorshipField(field, `${field} must be at most ${max} characters`);
    return clean;
  }

  /** The first associated membership, which a changed membership flag needs (409 otherwise). */
  private associated(view: SponsorshipView): { first: NonNullable<SponsorshipView['first']>; membership: number } {
    if (!view.first?.membership_id || !view.membership) throw sponsorshipWithoutMembership();
    return { first: view.first, membership: view.first.membership_id };
  }

  /** One step of the update: any failure but a domain refusal is 409 sponsor_subscription_update_error. */
  private async step<T>(action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      if (isServiceError(error) && error.status < 500 && error.code === 'sponsor_subscription_update_error') throw error;
      throw sponsorshipUpdateFailed();
    }
  }

  private async save(sponsorship: SponsorshipRecord, changes: Parameters<SponsorshipRepository['update']>[1]): Promise<SponsorshipRecord> {
    const saved = await this.deps.sponsorships.update(sponsorship._id, changes);
    if (!saved) throw sponsorshipUpdateFailed();
    return saved;
  }

  private async owned(caller: Caller, id: number, notFound: () => Error): Promise<SponsorshipRecord> {
    const sponsorship = id > 0 ? await this.deps.sponsorships.find(caller.resourceId, id) : null;
    if (!sponsorship || sponsorship.sponsor_id !== caller.userId) throw notFound();
    return sponsorship;
  }
}
