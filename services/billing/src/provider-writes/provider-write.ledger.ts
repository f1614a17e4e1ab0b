import { randomUUID } from 'node:crypto';
import { insertIfAbsent } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { providerWriteCalledOff, providerWriteInProgress } from './provider-write.errors.js';
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
 * - the holder also looks before writing, so a taken-over claim never writes twice;
 * - a write can be called off for good by the same unique insert (`callOff`, docs/adr/0223): then
 *   no caller ever holds the key, so the provider is never written under it.
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

  /**
   * The provider ID of the object written under `key`, writing it if nobody has. Throws
   * `provider_write_called_off` when the write was called off for good (`callOff`).
   */
  async once(key: string, write: ProviderWrite): Promise<string> {
    const outcome = await this.settle(key, write.find, false);
    if ('claim' in outcome) return this.writeAsHolder(outcome.claim, write);
    if (outcome.objectId === null) throw providerWriteCalledOff();
    return outcome.objectId;
  }

  /**
   * Calls off the write under `key` for good, unless it was written: the object written, or
   * called off (now, or before). A called-off claim is never released or taken over, so no later
   * `once` of the key writes; a holder in flight is waited for as by `once`. Like a holder, the
   * caller that calls it off then asks the provider, since a released holder whose call failed may
   * still have written (a timeout): found, the claim records that object instead. `checked` is
   * false when this caller did not ask (the provider could not be asked, or the claim was called
   * off before); it is called off all the same.
   */
  async callOff(key: string, find: ProviderWrite['find']): Promise<{ objectId: string } | { calledOff: true; checked: boolean }> {
    const outcome = await this.settle(key, find, true);
    // Called off before: by a caller that asked the provider, or one that died before it could.
    if (!('claim' in outcome)) return outcome.objectId === null ? { calledOff: true, checked: false } : { objectId: outcome.objectId };
    let found: string | null;
    try {
      found = await find();
    } catch {
      return { calledOff: true, checked: false };
    }
    if (!found) return { calledOff: true, checked: true };
    // Nobody writes a called-off claim: this update has no concurrent writer.
    await this.model.updateOne({ _id: key, token: outcome.claim.token }, { $set: { object_id: found, called_off: false } }).exec();
    return { objectId: found };
  }

  /**
   * Claims `key` (as a called-off claim when `calledOff`), or waits for the claim another caller
   * holds to end: its object (null: called off), or released and claimed by this caller.
   */
  private async settle(
    key: string,
    find: ProviderWrite['find'],
    calledOff: boolean,
  ): Promise<{ claim: ProviderWriteRecord } | { objectId: string | null }> {
    const deadline = Date.now() + this.options.waitMs;
    for (;;) {
      const claim = await this.tryClaim(key, calledOff);
      if (claim) return { claim };
      const existing = await this.model.findById(key).lean<ProviderWriteRecord>().exec();
      if (!existing) continue; // released meanwhile: claim again
      if (existing.called_off) return { objectId: null };
      if (existing.object_id) return { objectId: existing.object_id };
      const found = await find();
      if (found) {
        await this.model.updateOne({ _id: key, object_id: null }, { $set: { object_id: found } }).exec();
        return { objectId: found };
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

  private async tryClaim(key: string, calledOff: boolean): Promise<ProviderWriteRecord | null> {
    const claim: ProviderWriteRecord = { _id: key, token: randomUUID(), object_id: null, created_at: new Date() };
    if (calledOff) claim.called_off = true;
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
