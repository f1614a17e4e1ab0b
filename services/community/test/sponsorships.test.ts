import { randomUUID } from 'node:crypto';
import { createServiceClient, type ServiceClient } from '@masthead/core/grpc';
import { SponsorshipsServiceService } from '@masthead/proto/community/sponsorships';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommunityStack, type CommunityStack } from './support/harness.js';

/** Slot seats are unique claims (docs/adr/0155): parallel activations never exceed a slot's seats. */
let stack: CommunityStack;
let sponsorships: ServiceClient<typeof SponsorshipsServiceService>;
beforeAll(async () => {
  stack = await startCommunityStack();
  sponsorships = createServiceClient(SponsorshipsServiceService, stack.community.address, { defaultDeadlineMs: 30_000 });
}, 90_000);
afterAll(async () => {
  sponsorships?.close();
  await stack?.stop();
}, 30_000);

let lastId = 9000;
const newId = () => ++lastId;

describe('sponsorship slots', () => {
  it.each([1, 2])(
    'gives exactly 10 memberships to 30 parallel activations of a 10-seat slot (run %i)',
    async () => {
      const resourceId = newId();
      const plan = await stack.catalog.client.upsertPlan({
        resourceId,
        slug: `class-${resourceId}`,
        title: 'Class',
        active: true,
        private: false,
        fullAccess: false,
      });
      const pricing = await stack.catalog.client.upsertPricing({
        planId: plan.id,
        title: 'Class year',
        price: 30000,
        currency: 'USD',
        period: '1 year',
        active: true,
        private: false,
        externalSourceIds: '',
      });
      const sponsorship = await sponsorships.createSponsorship({
        resourceId,
        sponsorId: newId(),
        pricingId: pricing.id,
        purchaseKey: `purchase-${randomUUID()}`,
        slots: 1,
        seatsPerSlot: 10,
        title: '',
        description: '',
        isPayingBySponsor: true,
        autorenew: false,
      });
      const code = sponsorship.slots[0]!.code;
      const recipients = Array.from({ length: 30 }, () => newId());
      const outcomes = await Promise.all(
        recipients.map((userId) =>
          sponsorships.activateSlot({ caller: { resourceId, userId, email: `u${userId}@example.test`, role: 'user' }, code }).then(
            () => 'ok',
            (error: { code?: string }) => error.code,
          ),
        ),
      );
      expect(outcomes.filter((outcome) => outcome === 'ok')).toHaveLength(10);
      expect(outcomes.filter((outcome) => outcome === 'sponsor_slot_activation_error')).toHaveLength(20);
      expect(await stack.community.db.collection('sponsorship_slot_activations').countDocuments({ sponsorship_id: sponsorship.id })).toBe(
        10,
      );
      const granted = await Promise.all(
        recipients.map((userId) => stack.catalog.client.listMemberships({ resourceId, userId, includeHistory: false })),
      );
      expect(granted.filter((list) => list.items.length === 1)).toHaveLength(10);
    },
    120_000,
  );
});
