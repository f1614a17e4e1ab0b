import { randomUUID } from 'node:crypto';
import { insertIfAbsent } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { providerWriteInProgress } from './provider-write.errors.js';
import { providerWriteModel, type ProviderWriteRecord } from './provider-write.schema.js';

export interface ProviderWrite {
  /** Looks on the provider for the object an earlier attempt wrote with this key; null if none. */
  find(): Promise<string | null>;
  /** Writes the object with the key (as idempotency key and in its metadata); its provider ID. */
  create(): Promise<string>;
}

export interface LedgerOptions {
  /**
   * A claim without an object older than this has lost its holder (a holder finishes or fails
   * within one provider deadline): another caller may take it over.
   */
  staleAfterMs: number;
  /** How long a caller waits for another holder of the same key before giving up (409). */
  waitMs: number;
  /** Runs between the provider write and its record: the crash window (tests only). */
  afterProviderWrite?: (key: string) => Promise<void>;
}

const POLL_MS = 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * At-most-once provider writes (docs/adr/0121). The provider's Idempotency-Key already dedupes a
 * retried write on the real provider, but only for 24 hours and not at all on the local fake; the
 * ledger makes it hold on our side too:
 * - one caller claims the key (unique insert) and writes; concurrent callers wait for its result;
 * - a caller that finds a claim without a result (its holder crashed between the provider call
 *   and the record) first asks the provider for an object tagged with the key, and records it;
 * - the holder also looks before writing, so a taken-over claim never writes twice.
 */
export class ProviderWriteLedger {
  private readonly model: Model<ProviderWriteRecord>;

  constructor(
    db: Connection,
    private readonly options: LedgerOptions,
  ) {
    this.model = providerWriteModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** The provider ID of the object written under `key`, writing it if nobody has. */
  async once(key: string, write: ProviderWrite): Promise<string> {
    const deadline = Date.now() + this.options.waitMs;
    for (;;) {
      const claim = await this.tryClaim(key);
      if (claim) return this.writeAsHolder(claim, write);
      const existing = await this.model.findById(key).lean<ProviderWriteRecord>().exec();
      if (!existing) continue; // released meanwhile: claim again
      if (existing.object_id) return existing.object_id;
      const found = await write.find();
      if (found) {
        await this.model.updateOne({ _id: key, object_id: null }, { $set: { object_id: found } }).exec();
        return found;
      }
      if (Date.now() - existing.created_at.getTime() > this.options.staleAfterMs) {
        // Its holder is gone and wrote nothing: drop exactly that claim (by token) and claim again.
        await this.model.deleteOne({ _id: key, token: existing.token, object_id: null }).exec();
        continue;
      }
      if (Date.now() > deadline) throw providerWriteInProgress();
      await sleep(POLL_MS);
    }
  }

  /** The object ID recorded for `key`, if its write finished. */
  async recorded(key: string): Promise<string | null> {
    const record = await this.model.findById(key).lean<ProviderWriteRecord>().exec();
    return record?.object_id ?? null;
  }

  private async tryClaim(key: string): Promise<ProviderWriteRecord | null> {
    const claim: ProviderWriteRecord = { _id: key, token: randomUUID(), object_id: null, created_at: new Date() };
    return (await insertIfAbsent(this.model.create(claim))) ? claim : null;
  }

  private async writeAsHolder(claim: ProviderWriteRecord, write: ProviderWrite): Promise<string> {
    let objectId: string;
    try {
      objectId = (await write.find()) ?? (await write.create());
    } catch (error) {
      // Nothing was written (or the provider will dedupe by key): let the next attempt claim.
      await this.model.deleteOne({ _id: claim._id, token: claim.token }).exec();
      throw error;
    }
    await this.options.afterProviderWrite?.(claim._id);
    await this.model.updateOne({ _id: claim._id, token: claim.token }, { $set: { object_id: objectId } }).exec();
    return objectId;
  }
}
