import { claimSlot, insertWithNextId, isDuplicateKey, isStorableText, settleOnce } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { promoCodeExists } from './promo.errors.js';
import {
  promoCodeModel,
  promoRedemptionModel,
  promoUseFateModel,
  type PromoCodeRecord,
  type PromoRedemptionRecord,
  type PromoUseFateRecord,
} from './promo.schema.js';

/** One claim of a use: the slot's `_id` and when it was claimed (a slot is claimed again once given back). */
const fateKey = (use: Pick<PromoRedemptionRecord, '_id' | 'created_at'>) => `${use._id}@${new Date(use.created_at).getTime()}`;

export type NewPromoCode = Omit<PromoCodeRecord, '_id' | 'code_key' | 'created_at' | 'updated_at'>;

export const codeKey = (resourceId: number, code: string) => `${resourceId}:${code.trim().toUpperCase()}`;

/** Storage of promo codes and their claimed uses. Reads name the resource. */
export class PromoRepository {
  private readonly codes: Model<PromoCodeRecord>;
  private readonly redemptions: Model<PromoRedemptionRecord>;
  private readonly fates: Model<PromoUseFateRecord>;

  constructor(private readonly db: Connection) {
    this.codes = promoCodeModel(db);
    this.redemptions = promoRedemptionModel(db);
    this.fates = promoUseFateModel(db);
  }

  async ready(): Promise<void> {
    await Promise.all([this.codes.createIndexes(), this.redemptions.createIndexes(), this.fates.createIndexes()]);
  }

  /** 409 promo_code_exists for a code the resource has already (in any case). */
  async insert(promo: NewPromoCode): Promise<PromoCodeRecord> {
    const now = new Date();
    try {
      return await insertWithNextId(this.db, this.codes, {
        ...promo,
        code_key: codeKey(promo.resource_id, promo.code),
        created_at: now,
        updated_at: now,
      });
    } catch (error) {
      if (isDuplicateKey(error)) throw promoCodeExists();
      throw error;
    }
  }

  /** A code with a NUL (a member's input) matches no stored one (isStorableText). */
  findByCode(resourceId: number, code: string): Promise<PromoCodeRecord | null> {
    if (!isStorableText(code)) return Promise.resolve(null);
    return this.codes
      .findOne({ code_key: codeKey(resourceId, code) })
      .lean<PromoCodeRecord>()
      .exec();
  }

  list(resourceId: number): Promise<PromoCodeRecord[]> {
    return this.codes.find({ resource_id: resourceId }).sort({ _id: 1 }).lean<PromoCodeRecord[]>().exec();
  }

  setActive(id: number, active: boolean): Promise<PromoCodeRecord | null> {
    return this.codes
      .findOneAndUpdate({ _id: id }, { $set: { active, updated_at: new Date() } }, { new: true })
      .lean<PromoCodeRecord>()
      .exec();
  }

  uses(promoId: number): Promise<number> {
    return this.redemptions.countDocuments({ promo_id: promoId }).exec();
  }

  /**
   * Claims one use of a limited code for `claimKey` (a retry of the same checkout keeps its use):
   * a unique slot insert, so parallel checkouts never take more than `maxUses` in all. False when
   * every use is taken.
   */
  async claim(promoId: number, maxUses: number, claimKey: string): Promise<boolean> {
    if (await this.redemptions.exists({ promo_id: promoId, claim_key: claimKey }).exec()) return true;
    const slot = await claimSlot(
      (n) => this.redemptions.create({ _id: `${promoId}:${n}`, promo_id: promoId, claim_key: claimKey, created_at: new Date() }),
      await this.uses(promoId),
      maxUses,
    );
    return slot !== null;
  }

  /** The code's uses whose checkouts were not yet seen recorded (ADR 0220). */
  unconfirmedUses(promoId: number): Promise<PromoRedemptionRecord[]> {
    return this.redemptions
      .find({ promo_id: promoId, confirmed: { $ne: true } })
      .lean<PromoRedemptionRecord[]>()
      .exec();
  }

  /** The checkout's use of the code, if it holds one. */
  useOf(promoId: number, claimKey: string): Promise<PromoRedemptionRecord | null> {
    return this.redemptions.findOne({ promo_id: promoId, claim_key: claimKey }).lean<PromoRedemptionRecord>().exec();
  }

  /** Records how the use's doubt ended unless it ended already; answers the fate that stands (docs/adr/0235). */
  async settleFate(use: PromoRedemptionRecord, fate: PromoUseFateRecord['fate']): Promise<PromoUseFateRecord['fate']> {
    return (await settleOnce(this.fates, { _id: fateKey(use), fate, created_at: new Date() }, 'fate')).value;
  }

  /** Gives back this claim of the use (the sweep's), not a later claim of its slot. */
  async releaseUse(use: PromoRedemptionRecord): Promise<void> {
    await this.redemptions.deleteOne({ _id: use._id, claim_key: use.claim_key, created_at: use.created_at }).exec();
  }

  async confirmUse(id: string): Promise<void> {
    await this.redemptions.updateOne({ _id: id }, { $set: { confirmed: true } }).exec();
  }

  /** Gives back the uses a checkout claimed (it failed: nothing was bought). */
  async release(claimKey: string): Promise<void> {
    await this.redemptions.deleteMany({ claim_key: claimKey }).exec();
  }
}
