import { markedBy, markFields, withMarks, witnessOf, type EventWitness, type PreparedEvent } from '@masthead/core/events';
import { insertWithNextId, isDuplicateKey } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { extraDataModel, type ExtraDataRecord } from './extra-data.schema.js';

/** Whose extra data: every read and write is scoped to one member in one resource. */
export interface ExtraDataScope {
  resourceId: number;
  userId: number;
}

export interface FieldKey {
  groupKey: string;
  fieldKey: string;
}

/** Prepares the event of a field write for the row as it will be; `witness` is that row. */
export type Announce = (record: ExtraDataRecord, created: boolean, witness: EventWitness) => Promise<PreparedEvent>;

/** Enough for one parallel writer of the same field to win the insert and us to update after it. */
const MAX_UPSERT_ATTEMPTS = 3;

const scopeFilter = ({ resourceId, userId }: ExtraDataScope) => ({ resource_id: resourceId, user_id: userId });
const fieldFilter = (scope: ExtraDataScope, field: FieldKey) => ({
  ...scopeFilter(scope),
  group_key: field.groupKey,
  field_key: field.fieldKey,
});

export class ExtraDataRepository {
  private readonly model: Model<ExtraDataRecord>;

  constructor(private readonly db: Connection) {
    this.model = extraDataModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** The member's rows, of one group or of all, ascending by ID. */
  async list(scope: ExtraDataScope, groupKey?: string): Promise<ExtraDataRecord[]> {
    const filter = groupKey === undefined ? scopeFilter(scope) : { ...scopeFilter(scope), group_key: groupKey };
    // A member's rows are few: sorted here rather than by the database (FerretDB sorts in PostgreSQL without an index).
    const rows = await this.model.find(filter).lean<ExtraDataRecord[]>().exec();
    return rows.sort((left, right) => left._id - right._id);
  }

  /**
   * Sets a field's value, creating its row (with a new integer ID) when there is none. A parallel
   * writer of the same field can win the insert: the unique index refuses ours and we update
   * the row it created, so both writes land on one row (the later update wins). `announce`
   * prepares the write's event for the row as it will be, and the write marks the row with it
   * (docs/adr/0180).
   */
  async upsert(
    scope: ExtraDataScope,
    field: FieldKey,
    value: string,
    announce: Announce,
  ): Promise<{ record: ExtraDataRecord; created: boolean; prepared: PreparedEvent }> {
    for (let attempt = 1; ; attempt++) {
      const now = new Date();
      const existing = await this.model.findOne(fieldFilter(scope, field)).lean<ExtraDataRecord>().exec();
      if (existing) {
        const prepared = await announce({ ...existing, field_value: value, updated_at: now }, false, witnessOf(this.model, existing._id));
        const updated = await this.model
          .findOneAndUpdate(
            { _id: existing._id },
            withMarks({ $set: { field_value: value, updated_at: now } }, markedBy([prepared], existing)),
            { new: true },
          )
          .lean<ExtraDataRecord>()
          .exec();
        if (updated) return { record: updated, created: false, prepared };
        continue; // deleted meanwhile: its prepared event finds no mark and is dropped
      }
      let prepared: PreparedEvent | undefined;
      const row = { ...fieldFilter(scope, field), field_value: value, created_at: now, updated_at: now };
      try {
        const record = await insertWithNextId(this.db, this.model, row, {
          fieldsFor: async (id) => {
            prepared = await announce({ ...row, _id: id }, true, witnessOf(this.model, id));
            return markFields(prepared);
          },
        });
        return { record, created: true, prepared: prepared! };
      } catch (error) {
        if (!isDuplicateKey(error) || attempt >= MAX_UPSERT_ATTEMPTS) throw error;
      }
    }
  }

  /** Deletes every row of the member in the resource (profile removal, docs/adr/0071). */
  async removeAll(scope: ExtraDataScope): Promise<void> {
    await this.model.deleteMany(scopeFilter(scope)).exec();
  }

  /** Deletes a field's row; null when there was none. */
  remove(scope: ExtraDataScope, field: FieldKey): Promise<ExtraDataRecord | null> {
    return this.model.findOneAndDelete(fieldFilter(scope, field)).lean<ExtraDataRecord>().exec();
  }
}
