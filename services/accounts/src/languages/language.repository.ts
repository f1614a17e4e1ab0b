import { buildListQuery, type PageRequest } from '@masthead/core/pagination';
import type { Connection, Model } from 'mongoose';
import { insertIgnoringDuplicates } from '../support/insert-many.js';
import { LANGUAGE_LIST } from './language.list-spec.js';
import { languageModel, type LanguageRecord } from './language.schema.js';

export interface LanguagePage {
  rows: LanguageRecord[];
  total: number;
}

export type PackageLanguageFields = Pick<LanguageRecord, '_id' | 'slug' | 'title' | 'description'>;

/** Storage of languages; plain objects only. Languages are global: no resource scope. */
export class LanguageRepository {
  private readonly model: Model<LanguageRecord>;

  constructor(db: Connection) {
    this.model = languageModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** One page; throws 409 for an unknown filter or sort field. */
  async list(request: PageRequest): Promise<LanguagePage> {
    const query = buildListQuery(request, LANGUAGE_LIST, {});
    const [rows, total] = await Promise.all([
      this.model.find(query.filter).sort(query.sort).skip(query.skip).limit(query.limit).lean<LanguageRecord[]>().exec(),
      this.model.countDocuments(query.filter).exec(),
    ]);
    return { rows, total };
  }

  findById(id: number): Promise<LanguageRecord | null> {
    return this.model.findById(id).lean<LanguageRecord>().exec();
  }

  all(): Promise<LanguageRecord[]> {
    return this.model.find({}).lean<LanguageRecord[]>().exec();
  }

  insertMany(rows: LanguageRecord[]): Promise<void> {
    return insertIgnoringDuplicates(this.model, rows);
  }

  /** Rewrites the package-owned fields only. */
  async updatePackageFields(fields: PackageLanguageFields, now: Date): Promise<void> {
    const { _id, ...changes } = fields;
    await this.model.updateOne({ _id }, { $set: { ...changes, updated_at: now } }).exec();
  }
}
