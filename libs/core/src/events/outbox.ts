import { randomUUID } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import { Schema } from 'mongoose';

/**
 * The document whose write an event announces (ADR 0180): the write marks it with the event's ID
 * in the same single-document operation, so that after a crash the relay can tell a write that
 * committed (publish its event) from one that never did (drop the event).
 */
export interface EventWitness {
  collection: string;
  id: string | number;
}

/** An event waiting in the service's own database until JetStream acknowledged it. */
export interface OutboxRecord {
  _id: string;
  subject: string;
  payload: string;
  created_at: Date;
  attempts: number;
  /**
   * `prepared`: written before the write it announces, which may still be under way or may never
   * commit; the relay publishes it only once its witness carries the mark. Absent or `ready`:
   * the write committed, publish it.
   */
  state?: 'prepared' | 'ready';
  witness?: EventWitness;
  /**
   * The run of its process's records it belongs to (ADR 0200): published records leave the
   * outbox with one delete per bucket, found by an equality FerretDB hands to PostgreSQL, rather
   * than one statement per record. Absent on records of older versions.
   */
  bucket?: string;
}

const outboxSchema = new Schema<OutboxRecord>(
  {
    _id: { type: String, required: true },
    subject: { type: String, required: true },
    payload: { type: String, required: true },
    created_at: { type: Date, required: true },
    attempts: { type: Number, required: true, default: 0 },
    state: { type: String },
    witness: { type: Schema.Types.Mixed },
    bucket: { type: String },
  },
  { collection: 'outbox', versionKey: false },
);
// Serves the relay's scan for the oldest pending events.
outboxSchema.index({ created_at: 1 });
// Serves the delete of a bucket's published records.
outboxSchema.index({ bucket: 1 });

export function outboxModel(connection: Connection): Model<OutboxRecord> {
  return connection.models['Outbox'] ?? connection.model<OutboxRecord>('Outbox', outboxSchema);
}

export const newEventId = (): string => randomUUID();

/**
 * The field a witness carries its marks in: `{ <event ID>: <when marked> }` (ADR 0198). A mark
 * stays after its event is published: clearing it would be a write of its own on a document
 * that requests write too, and FerretDB applies an update by rewriting the whole document, so a
 * concurrent write (a session's revocation, a member's next profile update) could be undone.
 * The witness's next marking write drops its marks older than `MARK_RETENTION_MS`.
 */
export const WITNESSED_EVENTS_FIELD = '_witnessed_events';
/** Where ADR 0180 kept marks (an array, pulled after publish): read for events prepared before. */
export const LEGACY_EVENT_MARKS_FIELD = '_event_marks';
/** Far beyond the time in which the relay judges a prepared event (its grace and one sweep). */
export const MARK_RETENTION_MS = 60 * 60 * 1000;

/**
 * Schema plugin for a collection whose documents witness events: declares the marks fields, so
 * that mongoose keeps them in inserts and updates. Not `select: false`: that adds a projection
 * to findAndModify, which FerretDB refuses.
 */
export function eventMarks(schema: Schema): void {
  schema.add({
    [WITNESSED_EVENTS_FIELD]: { type: Schema.Types.Mixed, default: undefined },
    [LEGACY_EVENT_MARKS_FIELD]: { type: [String], default: undefined },
  });
}

/** The witness `id` of `model`'s collection. */
export const witnessOf = (model: { collection: { collectionName: string } }, id: string | number): EventWitness => ({
  collection: model.collection.collectionName,
  id,
});
