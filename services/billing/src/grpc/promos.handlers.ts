import type { AsyncImplementation } from '@masthead/core/grpc';
import type { PromoCodeServiceService } from '@masthead/proto/billing/promos';
import type { PromoService } from '../promos/promo.service.js';
import { toPromoCode } from './transactions.wire.js';

export function promoHandlers(promos: PromoService): AsyncImplementation<typeof PromoCodeServiceService> {
  return {
    createPromoCode: async (request) => {
      const promo = await promos.create({
        resourceId: request.resourceId,
        code: request.code,
        discountType: request.discountType,
        discountValue: request.discountValue,
        currency: request.currency || undefined,
        maxUses: request.maxUses,
        validFrom: request.validFrom || undefined,
        validUntil: request.validUntil || undefined,
        pricingIds: request.pricingIds,
      });
      return toPromoCode(promo, 0);
    },
    listPromoCodes: async ({ resourceId }) => {
      const codes = await promos.list(resourceId);
      return { items: await Promise.all(codes.map(async (promo) => toPromoCode(promo, await promos.uses(promo._id)))) };
    },
    setPromoCodeActive: async ({ id, active }) => {
      const promo = await promos.setActive(id, active);
      return toPromoCode(promo, await promos.uses(promo._id));
    },
  };
}
