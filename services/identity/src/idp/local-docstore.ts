import { isDuplicateKey } from '@masthead/core/mongo';
import { Schema, type Connection, type Model } from 'mongoose';
import type { Docstore, DocstoreFields, DocstoreValue } from './docstore.js';

/** One field of one document. */
interface LocalField {
  /** `<document>#<field>`: a field is its own record, so writes to different fields never touch one record. */
  _id: string;
  /** `<project_id>/users/<document_id>`, the document's path as the provider names it. */
  document: string;
  name: string;
  value: DocstoreValue;
  updated_at: Date;
}

const fieldSchema = new Schema<LocalField>(
  {
    _id: { type: String, required: true },
    document: { type: String, required: true },
    name: { type: String, required: true },
    value: { type: Schema.Types.Mixed, default: null },
    updated_at: { type: Date, required: true },
  },
  { collection: 'docstore_fields', versionKey: false, minimize: false },
);
// Serves reading a whole document.
fieldSchema.index({ document: 1 });

/**
 * The docstore in this service's own database, for development and test where no Firestore
 * emulator runs (ADR 0052); the config refuses it in production. FerretDB applies an update as
 * read-then-write (DESIGN.md), so two merges of one record can lose a field; storing each field
 * as its own record keyed by `_id` makes merges of different fields independent on both stores.
 */
export class LocalDocstore implements Docstore {
  private readonly model: Model<LocalField>;

  constructor(db: Connection) {
    this.model = db.models['DocstoreField'] ?? db.model<LocalField>('DocstoreField', fieldSchema);
  }

  async mergeUser(projectId: string, documentId: string, fields: DocstoreFields): Promise<DocstoreFields> {
    const document = pathOf(projectId, documentId);
    await Promise.all(Object.entries(fields).map(([name, value]) => this.writeField(document, name, value)));
    return (await this.getUser(projectId, documentId)) ?? {};
  }

  async getUser(projectId: string, documentId: string): Promise<DocstoreFields | null> {
    const rows = await this.model
      .find({ document: pathOf(projectId, documentId) })
      .lean<LocalField[]>()
      .exec();
    return rows.length === 0 ? null : Object.fromEntries(rows.map((row) => [row.name, row.value]));
  }

  private async writeField(document: string, name: string, value: DocstoreValue): Promise<void> {
    const write = () =>
      this.model
        .updateOne({ _id: `${document}#${name}` }, { $set: { document, name, value, updated_at: new Date() } }, { upsert: true })
        .exec();
    // Two first writes of one field race to insert it; the loser's retry updates the winner's.
    await write().catch((error: unknown) => {
      if (!isDuplicateKey(error)) throw error;
      return write();
    });
  }
}

const pathOf = (projectId: string, documentId: string) => `${projectId}/users/${documentId}`;
