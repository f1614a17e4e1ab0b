import { randomUUID } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import { Schema } from 'mongoose';

/** An event waiting in the service's own database until JetStream acknowledged it. */
export interface OutboxRecord {
  _id: string;
  subject: string;
  payload: string;
  created_at: Date;
  attempts: number;
}

const outboxSchema = new Schema<OutboxRecord>(
  {
    _id: { type: String, required: true },
    subject: { type: String, required: true },
    payload: { type: String, required: true },
    created_at: { type: Date, required: true },
    attempts: { type: Number, required: true, default: 0 },
  },
  { collection: 'outbox', versionKey: false },
);
// Serves the relay's scan for the oldest pending events.
outboxSchema.index({ created_at: 1 });

export function outboxModel(connection: Connection): Model<OutboxRecord> {
  return connection.models['Outbox'] ?? connection.model<OutboxRecord>('Outbox', outboxSchema);
}

export const newEventId = (): string => randomUUID();
