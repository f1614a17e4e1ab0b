import { isDuplicateKey } from '@masthead/core/mongo';
import { Schema, type Connection, type Model } from 'mongoose';
import type { Docstore, DocstoreFields } from './docstore.js';

interface LocalDocument {
  /** `<project_id>/users/<document_id>`, the document's path as the provider names it. */
  _id: string;
  fields: DocstoreFields;
  updated_at: Date;
}

const documentSchema = new Schema<LocalDocument>(
  {
    _id: { type: String, required: true },
    fields: { type: Schema.Types.Mixed, default: {} },
    updated_at: { type: Date, required: true },
  },
  { collection: 'docstore_documents', versionKey: false, minimize: false },
);

/**
 * The docstore in this service's own database, for development and test where no Firestore
 * emulator runs (ADR 0052); the config refuses it in production. Field names are checked by
 * the caller (no dots, no `$`), so each merges as one `$set` path.
 */
export class LocalDocstore implements Docstore {
  private readonly model: Model<LocalDocument>;

  constructor(db: Connection) {
    this.model = db.models['DocstoreDocument'] ?? db.model<LocalDocument>('DocstoreDocument', documentSchema);
  }

  async mergeUser(projectId: string, documentId: string, fields: DocstoreFields): Promise<DocstoreFields> {
    const set: Record<string, unknown> = { updated_at: new Date() };
    for (const [name, value] of Object.entries(fields)) set[`fields.${name}`] = value;
    const merge = () =>
      this.model
        .findOneAndUpdate({ _id: pathOf(projectId, documentId) }, { $set: set }, { upsert: true, new: true })
        .lean<LocalDocument>()
        .exec();
    // Two first merges of one document race to insert it; the loser's retry updates the winner's.
    const stored = await merge().catch((error: unknown) => {
      if (!isDuplicateKey(error)) throw error;
      return merge();
    });
    return stored?.fields ?? {};
  }

  async getUser(projectId: string, documentId: string): Promise<DocstoreFields | null> {
    const stored = await this.model.findById(pathOf(projectId, documentId)).lean<LocalDocument>().exec();
    return stored ? stored.fields : null;
  }
}

const pathOf = (projectId: string, documentId: string) => `${projectId}/users/${documentId}`;
