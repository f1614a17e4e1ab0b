import type { PromoCode } from '@masthead/proto/billing/promos';
import { integer, list, optional, text, UsageError, type Values } from './args.js';
import type { AdminClients } from './clients.js';

/** Operator commands of checkout's promo codes (billing, docs/adr/0144). */
export const PROMO_USAGE = `
  create-promo --resource-id N --code C (--percent-off P | --amount-off MINOR_UNITS --currency USD)
               [--max-uses N] [--valid-from ISO] [--valid-until ISO] [--for-pricing-id N ...]
                                        a promo code for checkout: --max-uses 0 or absent: no limit;
                                        --for-pricing-id limits it to those Pricings
  list-promos --resource-id N           the resource's promo codes with their uses
  set-promo-active --id N (--active | --inactive)
                                        switches a promo code on or off
`;

/** A promo code as operators read it. */
const showPromo = (promo: PromoCode) => ({
  id: promo.id,
  resource_id: promo.resourceId,
  code: promo.code,
  discount_type: promo.discountType,
  discount_value: promo.discountValue,
  currency: promo.currency || null,
  max_uses: promo.maxUses,
  uses: promo.uses,
  valid_from: promo.validFrom || null,
  valid_until: promo.validUntil || null,
  pricing_ids: promo.pricingIds,
  active: promo.active,
  created_at: promo.createdAt,
});

export const PROMO_COMMANDS: Record<string, (clients: AdminClients, values: Values) => Promise<unknown>> = {
  'create-promo': async (clients, values) => {
    const percent = optional(values, 'percent-off');
    const amount = optional(values, 'amount-off');
    if ((percent === undefined) === (amount === undefined)) throw new UsageError('give one of --percent-off and --amount-off');
    const promo = await clients.promoCodes.createPromoCode({
      resourceId: integer(values, 'resource-id'),
      code: text(values, 'code'),
      discountType: percent !== undefined ? 'percent' : 'amount',
      discountValue: integer(values, percent !== undefined ? 'percent-off' : 'amount-off'),
      currency: optional(values, 'currency') ?? '',
      maxUses: optional(values, 'max-uses') === undefined ? 0 : integer(values, 'max-uses'),
      validFrom: optional(values, 'valid-from') ?? '',
      validUntil: optional(values, 'valid-until') ?? '',
      pricingIds: list(values, 'for-pricing-id').map((id) => {
        if (!/^\d+$/.test(id)) throw new UsageError('--for-pricing-id must be an integer');
        return Number(id);
      }),
    });
    return showPromo(promo);
  },
  'list-promos': async (clients, values) =>
    (await clients.promoCodes.listPromoCodes({ resourceId: integer(values, 'resource-id') })).items.map(showPromo),
  'set-promo-active': async (clients, values) => {
    if ((values['active'] === true) === (values['inactive'] === true)) throw new UsageError('give one of --active and --inactive');
    return showPromo(await clients.promoCodes.setPromoCodeActive({ id: integer(values, 'id'), active: values['active'] === true }));
  },
};

export const PROMO_STRING_OPTIONS = ['percent-off', 'amount-off', 'max-uses', 'valid-from', 'valid-until'];
export const PROMO_MULTIPLE_OPTIONS = ['for-pricing-id'];
export const PROMO_FLAG_OPTIONS = ['active'];
