import type { Connection, Model } from 'mongoose';
import { countryModel, type CountryRecord } from './country.schema.js';
import type { CountryFields } from './country.merge.js';
import { insertIgnoringDuplicates } from '../support/insert-many.js';

/** Storage of the country reference data; plain objects only. */
export class CountryRepository {
  private readonly model: Model<CountryRecord>;

  constructor(db: Connection) {
    this.model = countryModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  all(): Promise<CountryRecord[]> {
    return this.model.find({}).lean<CountryRecord[]>().exec();
  }

  /** Inserts new countries; one that another process inserted first is left as it is. */
  insertMany(countries: CountryFields[], now: Date): Promise<void> {
    return insertIgnoringDuplicates(
      this.model,
      countries.map((country) => ({ ...country, created_at: now, updated_at: now })),
    );
  }

  /** Rewrites the package-owned fields; `sort` and `created_at` stay the operator's. */
  async update(country: CountryFields, now: Date): Promise<void> {
    await this.model
      .updateOne({ _id: country._id }, { $set: { code: country.code, title: country.title, states: country.states, updated_at: now } })
      .exec();
  }

  async delete(ids: number[]): Promise<void> {
    if (ids.length > 0) await this.model.deleteMany({ _id: { $in: ids } }).exec();
  }
}
