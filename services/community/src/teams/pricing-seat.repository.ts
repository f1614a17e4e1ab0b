import { claimSlot, isDuplicateKey } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { pricingSeatModel, type PricingSeatRecord } from './pricing-seat.schema.js';

/** What claiming a seat of a team Pricing ended with: a new seat, a full Pricing, or the user's seat that exists. */
export type PricingSeatClaim = { row: PricingSeatRecord } | { full: true } | { existing: PricingSeatRecord };

class ExistingSeat extends Error {
  constructor(readonly row: PricingSeatRecord) {
    super('the user holds a seat of the Pricing');
  }
}

/** Storage of team_pricing_seats (docs/adr/0233); results are plain objects. */
export class PricingSeatRepository {
  private readonly model: Model<PricingSeatRecord>;

  constructor(db: Connection) {
    this.model = pricingSeatModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  find(teamId: number, pricingId: number, userId: number): Promise<PricingSeatRecord | null> {
    return this.model.findOne({ team_id: teamId, pricing_id: pricingId, user_id: userId }).lean<PricingSeatRecord>().exec();
  }

  /** Seats of the Pricing taken in the team. */
  count(teamId: number, pricingId: number): Promise<number> {
    return this.model.countDocuments({ team_id: teamId, pricing_id: pricingId }).exec();
  }

  /**
   * Claims a seat of the Pricing below `limit` for the user (a unique insert per seat number,
   * ADR 0002), or answers the user's seat of it. `limit` must be positive: an uncapped Pricing
   * has no seats to claim.
   */
  async claim(teamId: number, pricingId: number, userId: number, limit: number, activationId: string | null): Promise<PricingSeatClaim> {
    const rowOn = (seat: number): PricingSeatRecord => ({
      _id: `${teamId}:${pricingId}:${seat}`,
      team_id: teamId,
      pricing_id: pricingId,
      user_id: userId,
      seat,
      activation_id: activationId,
      created_at: new Date(),
    });
    // The user's seat first: a full Pricing would be refused before any probe met it.
    const held = await this.find(teamId, pricingId, userId);
    if (held) return { existing: held };
    try {
      const seat = await claimSlot((n) => this.insertOnSeat(rowOn(n)), await this.count(teamId, pricingId), limit);
      return seat === null ? { full: true } : { row: rowOn(seat) };
    } catch (error) {
      if (error instanceof ExistingSeat) return { existing: error.row };
      throw error;
    }
  }

  /** One seat probe: FerretDB's duplicate-key error names no index, so a refusal is read back. */
  private async insertOnSeat(row: PricingSeatRecord): Promise<void> {
    try {
      await this.model.create(row);
    } catch (error) {
      if (!isDuplicateKey(error) || (await this.model.exists({ _id: row._id }))) throw error;
      const existing = await this.find(row.team_id, row.pricing_id, row.user_id);
      if (existing) throw new ExistingSeat(existing);
      throw error;
    }
  }

  /** Frees the seats the activation claimed (its grant was refused for good). */
  async releaseOfActivation(teamId: number, userId: number, activationId: string): Promise<void> {
    await this.model.deleteMany({ team_id: teamId, user_id: userId, activation_id: activationId }).exec();
  }

  /** The user's relationship holds no Pricing's seat but `keepPricingId`'s (null: none; it was removed). */
  async releaseForUser(teamId: number, userId: number, keepPricingId: number | null = null): Promise<void> {
    const filter = { team_id: teamId, user_id: userId };
    await this.model.deleteMany(keepPricingId === null ? filter : { ...filter, pricing_id: { $ne: keepPricingId } }).exec();
  }

  /** The team was deleted. */
  async releaseAll(teamId: number): Promise<void> {
    await this.model.deleteMany({ team_id: teamId }).exec();
  }
}
