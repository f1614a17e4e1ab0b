// The scale run's data (issue 14): members with their relationship, membership and sessions,
// bulk-loaded straight into the services' databases through the driver, in the shapes the
// services store (identity's users, relationships, credentials, sessions, session_tokens, refresh_tokens;
// catalog's memberships and membership_history). Far faster than the API: no hashing, no events.
import { createHash, randomBytes } from 'node:crypto';

import { hash, Algorithm } from '@node-rs/argon2';
import { MongoClient, type AnyBulkWriteOperation, type Collection, type Db, type Document } from 'mongodb';

import { HASH_PARAMETERS } from './baselines/hash-parameters.js';
import type { HttpTarget } from './load.js';

/** Sessions (each with its token and refresh record) per seeded member. */
export const SESSIONS_PER_MEMBER = 10;
/** The small size of the comparison: 1 000 sessions. */
export const SMALL_MEMBERS = 100;
/** The large size unless `--scale N` says otherwise: 1 000 000 sessions. */
export const LARGE_MEMBERS = 100_000;
/**
 * Seeded IDs start here, far above what the fixture and the run itself create through the API
 * (their counters stay low, so the two ranges never meet and no counter needs raising).
 */
const ID_BASE = 10_000_000;
const BATCH = 5_000;
const PARALLEL_BATCHES = 4;
export const SCALE_PASSWORD = 'Scale-password-1';

export interface ScaleSize {
  members: number;
  sessions: number;
}

export const sizeOf = (members: number): ScaleSize => ({ members, sessions: members * SESSIONS_PER_MEMBER });

/** What the catalog of the demo resource offers a seeded membership. */
interface CatalogRefs {
  resourceId: number;
  pricingId: number;
  planId: number;
}

/** The raw secrets of a seeded member's first session: what a client would hold. */
export interface SeededMember {
  index: number;
  userId: number;
  email: string;
  token: string;
  refreshToken: string;
}

const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * Seeds members `[from, to)` of the demo resource. Secrets are derived from a per-run key and the
 * member's index, so that `member(i)` gives any seeded member's token without keeping a million.
 */
export class ScaleSeeder {
  private readonly key = randomBytes(16).toString('hex');
  private passwordHash: Promise<string> | undefined;

  private constructor(
    private readonly client: MongoClient,
    private readonly identity: Db,
    private readonly catalog: Db,
    private readonly refs: CatalogRefs,
  ) {}

  static async open(mongoUrl: string, dbPrefix: string, resourceKey: string): Promise<ScaleSeeder> {
    const client = new MongoClient(mongoUrl, { maxPoolSize: PARALLEL_BATCHES + 2 });
    await client.connect();
    try {
      const resource = await client
        .db(`${dbPrefix}accounts`)
        .collection<{ _id: number; public_key: string }>('resources')
        .findOne({ public_key: resourceKey });
      if (!resource) throw new Error(`resource ${resourceKey} not found`);
      const catalog = client.db(`${dbPrefix}catalog`);
      const pricing = await catalog
        .collection<{ _id: number; plan_id: number; resource_id: number; active: boolean }>('pricings')
        .findOne({ resource_id: resource._id, active: true });
      if (!pricing) throw new Error(`resource ${resourceKey} has no active pricing`);
      const refs = { resourceId: resource._id, pricingId: pricing._id, planId: pricing.plan_id };
      return new ScaleSeeder(client, client.db(`${dbPrefix}identity`), catalog, refs);
    } catch (error) {
      await client.close();
      throw error;
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }

  member(index: number): SeededMember {
    const sessionId = this.sessionId(index, 0);
    return {
      index,
      userId: ID_BASE + index,
      email: `scale-${index}@bench.test`,
      token: this.secret('token', sessionId),
      refreshToken: this.secret('refresh', sessionId),
    };
  }

  /** Inserts members `[from, to)` with everything they own, in unordered batches. */
  async seed(from: number, to: number, progress: (message: string) => void = () => undefined): Promise<void> {
    // One hash for every seeded member (same password): argon2id with identity's parameters, so
    // that a sign-in verifies exactly as for a member who registered.
    const passwordHash = await (this.passwordHash ??= hash(SCALE_PASSWORD, {
      algorithm: Algorithm.Argon2id,
      memoryCost: HASH_PARAMETERS.memoryKib,
      timeCost: HASH_PARAMETERS.iterations,
      parallelism: HASH_PARAMETERS.parallelism,
    }));
    const started = Date.now();
    const starts: number[] = [];
    for (let start = from; start < to; start += BATCH) starts.push(start);
    let done = 0;
    const worker = async (): Promise<void> => {
      for (let start = starts.shift(); start !== undefined; start = starts.shift()) {
        await this.insertBatch(start, Math.min(to, start + BATCH), passwordHash);
        done += Math.min(to, start + BATCH) - start;
        if (done % (BATCH * 10) === 0 || done === to - from)
          progress(`seeded ${done}/${to - from} members (${Math.round((Date.now() - started) / 1000)} s)`);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL_BATCHES }, worker));
  }

  private sessionId(index: number, slot: number): number {
    return ID_BASE + index * SESSIONS_PER_MEMBER + slot;
  }

  private secret(kind: string, sessionId: number): string {
    return createHash('sha256').update(`${this.key}:${kind}:${sessionId}`).digest('base64url');
  }

  private async insertBatch(from: number, to: number, passwordHash: string): Promise<void> {
    const now = new Date();
    const expires = new Date(now.getTime() + 30 * 24 * 3600 * 1000);
    const users: Document[] = [];
    const relationships: Document[] = [];
    const credentials: Document[] = [];
    const sessions: Document[] = [];
    const tokens: Document[] = [];
    const refreshTokens: Document[] = [];
    const memberships: Document[] = [];
    const history: Document[] = [];
    const { resourceId, pricingId, planId } = this.refs;
    for (let index = from; index < to; index++) {
      const { userId, email } = this.member(index);
      users.push({
        _id: userId,
        email,
        password_hash: passwordHash,
        active: true,
        email_confirmed: true,
        role: 'user',
        // The other profile fields are left out: identity reads an absent one as null.
        first_name: 'Scale',
        last_name: `Member ${index}`,
        created_at: now,
        updated_at: now,
      });
      relationships.push({
        _id: `${resourceId}:${userId}`,
        resource_id: resourceId,
        user_id: userId,
        status: 'active',
        role: 'user',
        password_hash: null,
        extra: {},
        created_at: now,
        updated_at: now,
      });
      // The member's password as a credential version (docs/adr/0210), as after one reset: every
      // sign-in and session check then reads and applies a version, as for an established member base.
      credentials.push({
        _id: `user:${userId}:1`,
        scope: `user:${userId}`,
        user_id: userId,
        version: 1,
        state: { password_hash: passwordHash, active: true, role: 'user' },
        nonce: `scale-${userId}`,
        base: null,
        created_at: now,
      });
      for (let slot = 0; slot < SESSIONS_PER_MEMBER; slot++) {
        const sessionId = this.sessionId(index, slot);
        sessions.push({
          _id: sessionId,
          user_id: userId,
          resource_id: resourceId,
          expires_at: expires,
          revoked_at: null,
          compromised_at: null,
          source_type: null,
          guest_session: null,
          ip: '127.0.0.1',
          user_agent: 'masthead-bench',
          created_at: now,
        });
        tokens.push({ _id: hashToken(this.secret('token', sessionId)), session_id: sessionId, expires_at: expires });
        refreshTokens.push({
          _id: hashToken(this.secret('refresh', sessionId)),
          session_id: sessionId,
          user_id: userId,
          resource_id: resourceId,
          expires_at: expires,
          created_at: now,
          tracks_session: true,
          compromised_at: null,
        });
      }
      const membership = {
        _id: userId,
        user_id: userId,
        resource_id: resourceId,
        plan_id: planId,
        pricing_id: pricingId,
        active: true,
        autorenew: false,
        is_team_subscription: false,
        start_date: now,
        end_date: null,
        created_at: now,
        updated_at: now,
      };
      memberships.push(membership);
      history.push({
        _id: userId,
        membership_id: userId,
        user_id: userId,
        resource_id: resourceId,
        pricing_id: pricingId,
        action: 'created',
        created_at: now,
      });
    }
    await Promise.all([
      insertAll(this.identity.collection('users'), users),
      insertAll(this.identity.collection('relationships'), relationships),
      insertAll(this.identity.collection('credentials'), credentials),
      insertAll(this.identity.collection('sessions'), sessions),
      insertAll(this.identity.collection('session_tokens'), tokens),
      insertAll(this.identity.collection('refresh_tokens'), refreshTokens),
      insertAll(this.catalog.collection('memberships'), memberships),
      insertAll(this.catalog.collection('membership_history'), history),
    ]);
  }
}

/** One unordered bulk insert (the server inserts in any order and does not stop at a failure). */
async function insertAll(collection: Collection, documents: Document[]): Promise<void> {
  const operations: AnyBulkWriteOperation[] = documents.map((document) => ({ insertOne: { document } }));
  await collection.bulkWrite(operations, { ordered: false });
}

/**
 * The scale run's requests: each endpoint rotates over seeded members spread evenly over the
 * first `members`, so that the large run reads rows from the whole collection, not only the
 * first ones, while the small run reads the same number of distinct members.
 */
export function scaleTargets(
  api: string,
  resourceKey: string,
  seeder: ScaleSeeder,
  members: number,
  rotation = SMALL_MEMBERS,
): Record<'plans' | 'user' | 'signin' | 'refresh', HttpTarget> {
  const count = Math.min(rotation, members);
  const picked = Array.from({ length: count }, (_, i) => seeder.member(Math.floor((i * members) / count)));
  const json = { resource: resourceKey, 'content-type': 'application/json' };
  return {
    plans: { url: `${api}/plans`, method: 'GET', headers: { resource: resourceKey } },
    user: {
      url: `${api}/user`,
      method: 'GET',
      headers: { resource: resourceKey },
      variants: picked.map((member) => ({ headers: { token: member.token } })),
    },
    signin: {
      url: `${api}/authorization`,
      method: 'POST',
      headers: json,
      variants: picked.map((member) => ({ body: JSON.stringify({ email: member.email, password: SCALE_PASSWORD }) })),
    },
    refresh: {
      url: `${api}/authorization/refresh`,
      method: 'POST',
      headers: json,
      // reusable_refresh keeps each record, so the rotation can repeat (document 1, B).
      variants: picked.map((member) => ({
        body: JSON.stringify({ refresh_token: member.refreshToken, response_type: 'token', reusable_refresh: true }),
      })),
    },
  };
}
