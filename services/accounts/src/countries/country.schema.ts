import { Schema, type Connection, type Model } from 'mongoose';

export interface StateRecord {
  id: number;
  code: string;
  title: string;
}

/**
 * A country with its states embedded: states are only ever read with their country, and 249
 * documents load faster than 4,600 rows. `sort` belongs to the operator: seeding sets it once.
 */
export interface CountryRecord {
  /** Derived from the alpha-2 code (countryIdOf). */
  _id: number;
  code: string;
  title: string;
  sort: number;
  states: StateRecord[];
  created_at: Date;
  updated_at: Date;
}

const stateSchema = new Schema<StateRecord>(
  { id: { type: Number, required: true }, code: { type: String, default: '' }, title: { type: String, required: true } },
  { _id: false },
);

const countrySchema = new Schema<CountryRecord>(
  {
    _id: { type: Number, required: true },
    code: { type: String, required: true },
    title: { type: String, required: true },
    sort: { type: Number, required: true, default: 0 },
    states: { type: [stateSchema], default: [] },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'countries', versionKey: false },
);
// No secondary index: the whole list (249 documents) is read at once and kept in memory.

export const countryModel = (db: Connection): Model<CountryRecord> =>
  db.models['Country'] ?? db.model<CountryRecord>('Country', countrySchema);
