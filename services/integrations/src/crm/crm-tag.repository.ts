import { insertWithNextId, isDuplicateKey } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { z } from 'zod';
import { crmTagModel, type CrmTagRecord } from './crm-tag.schema.js';

/** A stored row that does not read as a tag: the "local lookup failure" of document 2 H. */
export class CrmTagReadError extends Error {
  constructor(id: unknown) {
    super(`stored CRM tag ${String(id)} is malformed`);
    this.name = 'CrmTagReadError';
  }
}

const storedTag = z.object({
  _id: z.number().int(),
  resource_id: z.number().int(),
  tag_id: z.string(),
  tag_type: z.string(),
  tag: z.string(),
  description: z.string(),
  subscriber_count: z.number(),
  allowed_for_users: z.boolean(),
  required: z.boolean(),
});

/** The provider's side of a tag, as an import writes it. */
export type ProviderTag = Pick<CrmTagRecord, 'tag_id' | 'tag_type' | 'tag' | 'description' | 'subscriber_count'>;

/** Storage of a resource's CRM tags; every read names the resource and checks each row. */
export class CrmTagRepository {
  private readonly model: Model<CrmTagRecord>;

  constructor(private readonly db: Connection) {
    this.model = crmTagModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Tags members may see (GET /integrations/crm/tags), by local ID. */
  listAllowed(resourceId: number): Promise<CrmTagRecord[]> {
    return this.read({ resource_id: resourceId, allowed_for_users: true });
  }

  listAll(resourceId: number): Promise<CrmTagRecord[]> {
    return this.read({ resource_id: resourceId });
  }

  findByIds(resourceId: number, ids: number[]): Promise<CrmTagRecord[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.read({ resource_id: resourceId, _id: { $in: ids } });
  }

  findByTagIds(resourceId: number, tagIds: string[]): Promise<CrmTagRecord[]> {
    return tagIds.length === 0 ? Promise.resolve([]) : this.read({ resource_id: resourceId, tag_id: { $in: tagIds } });
  }

  /** Writes the provider's fields of a tag, creating the row (flags off) when it is new. */
  async upsertFromProvider(resourceId: number, tag: ProviderTag): Promise<void> {
    const filter = { resource_id: resourceId, tag_id: tag.tag_id };
    const now = new Date();
    const { matchedCount } = await this.model.updateOne(filter, { $set: { ...tag, updated_at: now } }).exec();
    if (matchedCount === 1) return;
    try {
      await insertWithNextId(this.db, this.model, {
        ...tag,
        resource_id: resourceId,
        allowed_for_users: false,
        required: false,
        created_at: now,
        updated_at: now,
      });
    } catch (error) {
      // A concurrent import created it: update that row instead.
      if (!isDuplicateKey(error)) throw error;
      await this.model.updateOne(filter, { $set: { ...tag, updated_at: now } }).exec();
    }
  }

  /** Sets a stored tag's flags; null when the resource has no such provider tag. */
  async setFlags(resourceId: number, tagId: string, flags: Pick<CrmTagRecord, 'allowed_for_users' | 'required'>) {
    const row = await this.model
      .findOneAndUpdate({ resource_id: resourceId, tag_id: tagId }, { $set: { ...flags, updated_at: new Date() } }, { new: true })
      .lean<CrmTagRecord>()
      .exec();
    return row ? check(row) : null;
  }

  private async read(filter: Record<string, unknown>): Promise<CrmTagRecord[]> {
    const rows = await this.model.find(filter).sort({ _id: 1 }).lean<CrmTagRecord[]>().exec();
    return rows.map(check);
  }
}

function check(row: CrmTagRecord): CrmTagRecord {
  if (!storedTag.safeParse(row).success) throw new CrmTagReadError(row._id);
  return row;
}
