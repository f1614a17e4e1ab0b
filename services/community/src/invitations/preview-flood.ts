import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';

/** One preview request; counting rows, not `$inc`, so no request goes uncounted (ADR 0002). */
interface PreviewHit {
  _id: string;
  key: string;
  window: number;
}

const hitSchema = new Schema<PreviewHit>(
  { _id: { type: String, required: true }, key: { type: String, required: true }, window: { type: Number, required: true } },
  { collection: 'invite_preview_hits', versionKey: false },
);
// Serves the count of one key's window and the sweep of old windows.
hitSchema.index({ key: 1, window: 1 });

/** Document 2 Limits: 50 per action/resource/IP; the reset window is unspecified: one hour here. */
export const PREVIEW_LIMIT = 50;
const WINDOW_MS = 60 * 60 * 1000;

/** The invite-preview flood counter (document 2 D; docs/adr/0136). */
export class PreviewFlood {
  private readonly model: Model<PreviewHit>;

  constructor(db: Connection) {
    this.model = db.models['InvitePreviewHit'] ?? db.model<PreviewHit>('InvitePreviewHit', hitSchema);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Counts this request; false once the key is over the limit in the current window. */
  async allow(action: string, resourceId: number, ip: string): Promise<boolean> {
    const window = Math.floor(Date.now() / WINDOW_MS);
    const key = `${action}:${resourceId}:${ip}`;
    await this.model.create({ _id: randomUUID(), key, window });
    return (await this.model.countDocuments({ key, window }).exec()) <= PREVIEW_LIMIT;
  }
}
