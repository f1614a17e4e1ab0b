import { insertIfAbsent } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { eventNameModel, type EventNameRecord } from './event-name.schema.js';

/** Storage of the global event names (no resource: the spec's list has no resource filter). */
export class EventNameRepository {
  private readonly model: Model<EventNameRecord>;

  constructor(db: Connection) {
    this.model = eventNameModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  list(): Promise<EventNameRecord[]> {
    return this.model.find().sort({ _id: 1 }).lean<EventNameRecord[]>().exec();
  }

  /** Adds a name unless it exists (an operator's later change of it is kept). */
  seed(name: string, description: string): Promise<boolean> {
    const now = new Date();
    return insertIfAbsent(this.model.create({ _id: name, private: false, description, created_at: now, updated_at: now }));
  }

  async save(name: string, isPrivate: boolean, description: string): Promise<EventNameRecord> {
    const now = new Date();
    await this.model
      .updateOne(
        { _id: name },
        { $set: { private: isPrivate, description, updated_at: now }, $setOnInsert: { created_at: now } },
        { upsert: true },
      )
      .exec();
    return (await this.model.findById(name).lean<EventNameRecord>().exec())!;
  }
}
