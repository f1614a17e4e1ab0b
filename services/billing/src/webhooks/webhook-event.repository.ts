import { insertIfAbsent } from '@masthead/core/mongo';
import { Schema, type Connection, type Model } from 'mongoose';

/** One provider event billing took (`webhook_events`, `_id` = the provider's event ID). */
interface WebhookEventRecord {
  _id: string;
  type: string;
  status: 'processing' | 'done';
  created_at: Date;
}

const eventSchema = new Schema<WebhookEventRecord>(
  {
    _id: { type: String, required: true },
    type: { type: String, required: true },
    status: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'webhook_events', versionKey: false },
);

/** A claim older than this lost its handler (a crash): the next delivery takes it over. */
const STALE_MS = 60_000;

export class WebhookEventRepository {
  private readonly model: Model<WebhookEventRecord>;

  constructor(db: Connection) {
    this.model = db.models['WebhookEvent'] ?? db.model<WebhookEventRecord>('WebhookEvent', eventSchema);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** `claimed` for the delivery that handles the event; `done` for a repeat; `busy` while another handles it. */
  async claim(id: string, type: string): Promise<'claimed' | 'done' | 'busy'> {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await insertIfAbsent(this.model.create({ _id: id, type, status: 'processing', created_at: new Date() }))) return 'claimed';
      const held = await this.model.findById(id).lean<WebhookEventRecord>().exec();
      if (!held) continue;
      if (held.status === 'done') return 'done';
      if (Date.now() - held.created_at.getTime() < STALE_MS) return 'busy';
      await this.model.deleteOne({ _id: id, status: 'processing', created_at: held.created_at }).exec();
    }
    return 'busy';
  }

  async done(id: string): Promise<void> {
    await this.model.updateOne({ _id: id }, { $set: { status: 'done' } }).exec();
  }

  /** The handling failed: the provider's retry of the event handles it again. */
  async release(id: string): Promise<void> {
    await this.model.deleteOne({ _id: id, status: 'processing' }).exec();
  }
}
