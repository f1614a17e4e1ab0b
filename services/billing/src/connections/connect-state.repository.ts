import { createHash, randomBytes } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import { connectStateModel, type ConnectStateRecord } from './connect-state.schema.js';
import type { ProviderMode } from './connection.schema.js';

/** 256 random bits, base64url: unguessable, URL-safe in the authorize link. */
const STATE_BYTES = 32;

export const hashState = (state: string): string => createHash('sha256').update(state).digest('hex');

export interface StateBinding {
  resourceId: number;
  mode: ProviderMode;
  userId: number;
}

/** Connect states, stored only as hashes (docs/adr/0126). */
export class ConnectStateRepository {
  private readonly model: Model<ConnectStateRecord>;

  constructor(db: Connection) {
    this.model = connectStateModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** A new state for `binding`, valid `ttlMs`; the plain value is returned once and not kept. */
  async issue(binding: StateBinding, ttlMs: number): Promise<{ state: string; expiresAt: Date }> {
    const state = randomBytes(STATE_BYTES).toString('base64url');
    const now = new Date();
    const expiresAt = new Date(now.getTime() + ttlMs);
    await this.model.create({
      _id: hashState(state),
      resource_id: binding.resourceId,
      mode: binding.mode,
      user_id: binding.userId,
      expires_at: expiresAt,
      created_at: now,
    });
    return { state, expiresAt };
  }

  /**
   * The hash of `state` when it is outstanding for exactly this binding and not expired; null
   * otherwise (all failures alike). Looked up by `_id` (the filter FerretDB pushes down).
   */
  async live(state: string, binding: StateBinding): Promise<string | null> {
    const id = hashState(state);
    const record = await this.model.findById(id).lean<ConnectStateRecord>().exec();
    if (!record || record.expires_at.getTime() <= Date.now()) return null;
    const bound = record.resource_id === binding.resourceId && record.mode === binding.mode && record.user_id === binding.userId;
    return bound ? id : null;
  }

  /** Spends a state once its exchange is recorded. */
  async spend(id: string): Promise<void> {
    await this.model.deleteOne({ _id: id }).exec();
  }

  /**
   * Drops the expired states of one admin on one resource (run when issuing, so that repeated
   * guidance reads do not pile up records; FerretDB has no TTL index to rely on).
   */
  async dropExpired(binding: StateBinding): Promise<void> {
    await this.model.deleteMany({ resource_id: binding.resourceId, user_id: binding.userId, expires_at: { $lte: new Date() } }).exec();
  }
}
