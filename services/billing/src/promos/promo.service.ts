import { parseOrThrow } from '@masthead/core/errors';
import { z } from 'zod';
import {
  invalidPromoDefinition,
  promoCodeNotFound,
  promoExhausted,
  promoExpired,
  promoNotApplicable,
  promoNotFound,
  promoNotStarted,
} from './promo.errors.js';
import type { AbandonedUses } from './abandoned-uses.js';
import type { PromoRepository } from './promo.repository.js';
import type { PromoCodeRecord } from './promo.schema.js';

const isoDate = z
  .string()
  .trim()
  .optional()
  .refine((text) => !text || !Number.isNaN(Date.parse(text)), 'an ISO 8601 date')
  .transform((text) => (text ? new Date(text) : null));

/** CreatePromoCode, an operator call (masthead-admin create-promo). Unknown keys are stripped. */
export const createPromoCommand = z
  .object({
    resourceId: z.number().int().positive('resource_id must be a positive integer'),
    code: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_-]{2,64}$/, 'code: 2–64 letters, digits, _ or -'),
    discountType: z.enum(['percent', 'amount'], { message: 'discount_type: percent or amount' }),
    discountValue: z.number().int('discount_value: an integer').positive('discount_value must be positive'),
    currency: z.string().trim().toUpperCase().optional(),
    maxUses: z.number().int().nonnegative('max_uses must be 0 (no limit) or more'),
    validFrom: isoDate,
    validUntil: isoDate,
    pricingIds: z.array(z.number().int().positive()),
  })
  .superRefine((value, context) => {
    const problem = (message: string) => context.addIssue({ code: z.ZodIssueCode.custom, message });
    if (value.discountType === 'percent' && value.discountValue > 100) problem('discount_value: at most 100 percent');
    if (value.discountType === 'amount' && !/^[A-Z]{3}$/.test(value.currency ?? '')) problem('currency: three letters for an amount off');
    if (value.validFrom && value.validUntil && value.validFrom >= value.validUntil) problem('valid_until must be after valid_from');
  });

export type CreatePromoCommand = z.output<typeof createPromoCommand>;

/** A promo code applied to one item: what it takes off the price. */
export interface AppliedPromo {
  promo: PromoCodeRecord;
  discount: number;
}

/** Promo codes (docs/adr/0144): operators define them; checkout checks, applies and claims them. */
export class PromoService {
  constructor(private readonly deps: { promos: PromoRepository; abandoned?: AbandonedUses }) {}

  async create(request: unknown): Promise<PromoCodeRecord> {
    let command: CreatePromoCommand;
    try {
      command = parseOrThrow(createPromoCommand, request);
    } catch (error) {
      throw invalidPromoDefinition((error as Error).message);
    }
    return this.deps.promos.insert({
      resource_id: command.resourceId,
      code: command.code,
      discount_type: command.discountType,
      discount_value: command.discountValue,
      currency: command.discountType === 'amount' ? (command.currency ?? null) : null,
      max_uses: command.maxUses,
      valid_from: command.validFrom,
      valid_until: command.validUntil,
      pricing_ids: command.pricingIds,
      active: true,
    });
  }

  list(resourceId: number): Promise<PromoCodeRecord[]> {
    return this.deps.promos.list(resourceId);
  }

  uses(promoId: number): Promise<number> {
    return this.deps.promos.uses(promoId);
  }

  async setActive(id: number, active: boolean): Promise<PromoCodeRecord> {
    const promo = await this.deps.promos.setActive(id, active);
    if (!promo) throw promoCodeNotFound();
    return promo;
  }

  /**
   * The code's discount on one item at `now`: 409 invalid_promo when it is unknown or switched
   * off, outside its window, used up, limited to other Pricings or an amount in another
   * currency. Checking does not claim a use (see `claim`).
   */
  async apply(
    resourceId: number,
    code: string,
    item: { itemId: number; price: number; currency: string },
    now: Date,
  ): Promise<AppliedPromo> {
    const promo = await this.deps.promos.findByCode(resourceId, code);
    if (!promo || !promo.active) throw promoNotFound();
    if (promo.valid_from && now < promo.valid_from) throw promoNotStarted();
    if (promo.valid_until && now >= promo.valid_until) throw promoExpired();
    if (promo.pricing_ids.length > 0 && !promo.pricing_ids.includes(item.itemId)) throw promoNotApplicable();
    if (promo.discount_type === 'amount' && promo.currency !== item.currency.toUpperCase()) throw promoNotApplicable();
    if (promo.max_uses > 0 && (await this.usedUp(promo))) throw promoExhausted();
    const discount =
      promo.discount_type === 'percent'
        ? Math.round((item.price * promo.discount_value) / 100)
        : Math.min(promo.discount_value, item.price);
    return { promo, discount };
  }

  /** Takes one use of each limited code for the checkout `claimKey`; 409 invalid_promo when one is used up. */
  async claim(promos: PromoCodeRecord[], claimKey: string): Promise<void> {
    for (const promo of promos) {
      if (promo.max_uses > 0 && !(await this.claimOne(promo, claimKey))) {
        await this.release(claimKey);
        throw promoExhausted();
      }
    }
  }

  private async claimOne(promo: PromoCodeRecord, claimKey: string): Promise<boolean> {
    const claim = () => this.deps.promos.claim(promo._id, promo.max_uses, claimKey);
    if (await claim()) return true;
    return (await this.deps.abandoned?.giveBack(promo._id)) ? claim() : false;
  }

  /** Every use taken, after giving back those of checkouts that died before recording (ADR 0220). */
  private async usedUp(promo: PromoCodeRecord): Promise<boolean> {
    const usedUp = async () => (await this.deps.promos.uses(promo._id)) >= promo.max_uses;
    if (!(await usedUp())) return false;
    return (await this.deps.abandoned?.giveBack(promo._id)) ? usedUp() : true;
  }

  /**
   * The checkout `claimKey` recorded its transaction: its uses are kept for good (docs/adr/0235).
   * A use the abandoned-use sweep gave back meanwhile (the checkout was slower than the lease) is
   * claimed again; false when a code has no use left, so the checkout must not go on.
   */
  async keep(promos: PromoCodeRecord[], claimKey: string): Promise<boolean> {
    for (const promo of promos) {
      if (promo.max_uses <= 0) continue;
      if (!(await this.keepOne(promo, claimKey))) return false;
    }
    return true;
  }

  private async keepOne(promo: PromoCodeRecord, claimKey: string): Promise<boolean> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const use = await this.deps.promos.useOf(promo._id, claimKey);
      if (use && (await this.deps.promos.settleFate(use, 'kept')) === 'kept') return true;
      // Given back (or about to be): claimed again now, the use is seen with its transaction.
      if (use) await this.deps.promos.releaseUse(use);
      if (!(await this.claimOne(promo, claimKey))) return false;
    }
    return false;
  }

  release(claimKey: string): Promise<void> {
    return this.deps.promos.release(claimKey);
  }
}
