import { insertWithNextId } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { endpointModel, type WebhookEndpointRecord } from './endpoint.schema.js';

export type NewEndpoint = Omit<WebhookEndpointRecord, '_id' | 'created_at' | 'updated_at'>;

/** Storage of webhook endpoints; every read names the resource. Plain objects. */
export class EndpointRepository {
  private readonly model: Model<WebhookEndpointRecord>;

  constructor(private readonly db: Connection) {
    this.model = endpointModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  create(endpoint: NewEndpoint): Promise<WebhookEndpointRecord> {
    const now = new Date();
    return insertWithNextId(this.db, this.model, { ...endpoint, created_at: now, updated_at: now });
  }

  find(resourceId: number, id: number): Promise<WebhookEndpointRecord | null> {
    return this.model.findOne({ _id: id, resource_id: resourceId }).lean<WebhookEndpointRecord>().exec();
  }

  listOfResource(resourceId: number): Promise<WebhookEndpointRecord[]> {
    return this.model.find({ resource_id: resourceId }).sort({ _id: 1 }).lean<WebhookEndpointRecord[]>().exec();
  }

  activeOfResource(resourceId: number): Promise<WebhookEndpointRecord[]> {
    return this.model.find({ resource_id: resourceId, active: true }).lean<WebhookEndpointRecord[]>().exec();
  }

  setActive(resourceId: number, id: number, active: boolean): Promise<WebhookEndpointRecord | null> {
    return this.model
      .findOneAndUpdate({ _id: id, resource_id: resourceId }, { $set: { active, updated_at: new Date() } }, { new: true })
      .lean<WebhookEndpointRecord>()
      .exec();
  }
}
