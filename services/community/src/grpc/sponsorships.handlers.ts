import type { AsyncImplementation } from '@masthead/core/grpc';
import type { Logger } from '@masthead/core/logging';
import type { SponsorshipsServiceService } from '@masthead/proto/community/sponsorships';
import type { RecipientService } from '../sponsorships/recipient.service.js';
import type { SlotService } from '../sponsorships/slot.service.js';
import type { SponsorshipPurchaseService } from '../sponsorships/sponsorship-purchase.service.js';
import { sponsorshipFailed, sponsorshipsFailed } from '../sponsorships/sponsorship.errors.js';
import type { SponsorshipService } from '../sponsorships/sponsorship.service.js';
import type { SponsorshipViews } from '../sponsorships/sponsorship.views.js';
import { caught } from '../support/caught.js';
import { toRecipientSlot, toSlot, toSlotActivation, toSponsorship } from './community.wire.js';
import { callerOf } from './teams.handlers.js';

interface Deps {
  sponsorships: SponsorshipService;
  slots: SlotService;
  recipients: RecipientService;
  purchases: SponsorshipPurchaseService;
  views: SponsorshipViews;
  logger: Logger;
}

/** gRPC SponsorshipsService (proto/defs/masthead/community/v1/sponsorships.proto). */
export function sponsorshipsHandlers({
  sponsorships,
  slots,
  recipients,
  purchases,
  views,
  logger,
}: Deps): AsyncImplementation<typeof SponsorshipsServiceService> {
  const guarded = caught(logger);
  return {
    listSponsorships: guarded(sponsorshipsFailed, async ({ caller }) => ({
      items: (await sponsorships.list(callerOf(caller))).map((view) => toSponsorship(view.sponsorship, view)),
    })),
    getSponsorship: guarded(sponsorshipFailed, async ({ caller, sponsorshipId }) => {
      const view = await sponsorships.get(callerOf(caller), sponsorshipId);
      return toSponsorship(view.sponsorship, view);
    }),
    updateSponsorship: async ({ caller, sponsorshipId, ...changes }) => {
      const view = await sponsorships.update(callerOf(caller), sponsorshipId, changes);
      return toSponsorship(view.sponsorship, view);
    },
    listSponsorshipSlots: guarded(sponsorshipFailed, async ({ caller, sponsorshipId }) => ({
      items: (await sponsorships.slots(callerOf(caller), sponsorshipId)).map((slot) => toSlot(slot)),
    })),
    getSponsorSlot: async ({ caller, slotId }) => toSlot(await slots.get(callerOf(caller), slotId), true),
    inviteSlotRecipient: async ({ caller, slotId, recipientEmail }) =>
      toSlot(await slots.invite(callerOf(caller), slotId, recipientEmail), true),
    clearSlot: async ({ caller, slotId }) => toSlot(await slots.clear(callerOf(caller), slotId), true),
    listRecipientSlots: async ({ caller }) => ({ items: (await recipients.list(callerOf(caller))).map(toRecipientSlot) }),
    previewSlot: async ({ caller, code }) => toRecipientSlot(await recipients.preview(callerOf(caller), code)),
    activateSlot: async ({ caller, code }) => toSlotActivation(await recipients.activate(callerOf(caller), code)),
    turnOffSponsorPayment: async ({ caller, slotId }) => toSlotActivation(await recipients.turnOffSponsorPayment(callerOf(caller), slotId)),
    createSponsorship: async (request) => {
      const sponsorship = await purchases.create(request);
      return toSponsorship(sponsorship, await views.one(sponsorship));
    },
    revokeSponsorship: async (request) => purchases.revoke(request),
    getMembershipSponsorship: async ({ resourceId, membershipId }) => {
      const found = await purchases.ofMembership(resourceId, membershipId);
      if (!found)
        return {
          sponsored: false,
          sponsorshipId: 0,
          sponsorId: 0,
          recipientId: 0,
          isPayingBySponsor: false,
          autorenew: false,
          isAllowedNextSubscription: false,
        };
      const { activation, sponsorship } = found;
      return {
        sponsored: true,
        sponsorshipId: sponsorship._id,
        sponsorId: sponsorship.sponsor_id,
        recipientId: activation.user_id,
        isPayingBySponsor: sponsorship.is_paying_by_sponsor && activation.is_paying_by_sponsor,
        autorenew: sponsorship.autorenew,
        isAllowedNextSubscription: activation.is_allowed_next_subscription,
      };
    },
  };
}
