import { randomBytes } from 'node:crypto';
import { insertIfAbsent, rowsOf } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import type { MemberChangeListener } from '../users/profile-cache.js';
import { credentialsContended } from './credential.errors.js';
import { credentialModel, type CredentialVersion } from './credential.schema.js';
import type { RecentCredentials } from './recent-credentials.js';

export const userScope = (userId: number): string => `user:${userId}`;
export const relationshipScope = (resourceId: number, userId: number): string => `rel:${resourceId}:${userId}`;

/** Far beyond any real contention: each lost attempt means another writer of the scope landed. */
const MAX_ATTEMPTS = 20;
/**
 * Superseded versions are kept this long: a prune frees a version's `_id`, so a writer that read
 * the version below it may insert it again; the kept history lets that writer see it lost.
 */
const PRUNE_AFTER_MS = 10 * 60_000;

/** The credential versions of each scope of one member, as read at one moment. */
export class MemberCredentials {
  private readonly scopes = new Map<string, Map<number, CredentialVersion>>();
  private readonly newest = new Map<string, CredentialVersion>();

  constructor(versions: readonly CredentialVersion[]) {
    for (const version of versions) {
      const kept = this.scopes.get(version.scope) ?? new Map<number, CredentialVersion>();
      this.scopes.set(version.scope, kept.set(version.version, version));
      const seen = this.newest.get(version.scope);
      if (!seen || seen.version < version.version) this.newest.set(version.scope, version);
    }
  }

  /** The scope's newest state; undefined when it has no version (its record's own fields count). */
  stateOf<S extends object>(scope: string): S | undefined {
    return this.newest.get(scope)?.state as S | undefined;
  }

  versionOf(scope: string): number {
    return this.newest.get(scope)?.version ?? 0;
  }

  /** Version `version` of the scope, while it is kept. */
  at(scope: string, version: number): CredentialVersion | undefined {
    return this.scopes.get(scope)?.get(version);
  }
}

export interface CredentialRepositoryDeps {
  db: Connection;
  /** Told of every write, after it (the profile cache, ADR 0191). */
  changes: MemberChangeListener;
  /** The member path's moments-old reads (docs/adr/0216); dropped at every write here. */
  recent?: RecentCredentials;
}

/**
 * Insert-only versions of security state (docs/adr/0210). FerretDB rewrites a whole document per
 * update without a version check, so state kept beside often-written fields, or written by two
 * writers at once, could be written back to an older value; an insert under a unique key cannot.
 */
export class CredentialRepository {
  private readonly model: Model<CredentialVersion>;

  constructor(private readonly deps: CredentialRepositoryDeps) {
    this.model = credentialModel(deps.db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Every scope of the member in one equality read (a few rows: superseded versions are pruned). */
  async read(userId: number): Promise<MemberCredentials> {
    return new MemberCredentials(await rowsOf(this.model).find({ user_id: userId }).toArray());
  }

  /**
   * As `read`, but possibly as read moments ago (docs/adr/0216): for the session check and the
   * profile read only, never for a password check or a write's decision.
   */
  readRecent(userId: number): Promise<MemberCredentials> {
    return this.deps.recent ? this.deps.recent.read(userId, () => this.read(userId)) : this.read(userId);
  }

  /**
   * Writes the scope's next version: `decide` gets the newest state (`fallback` when the scope
   * has none yet: the record's own fields, version 0) and returns the next one, or null to
   * write nothing. A writer that loses the race for the version reads again and decides again,
   * so it lands on top of the winner (or, deciding null, gives up). Returns what was written.
   */
  async change<S extends object>(
    userId: number,
    scope: string,
    fallback: () => Promise<S | null>,
    decide: (current: S | null) => S | null,
  ): Promise<S | null> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const credentials = await this.read(userId);
      const current = credentials.stateOf<S>(scope) ?? (await fallback());
      const next = decide(current);
      if (!next) return null;
      const version = credentials.versionOf(scope) + 1;
      const row: CredentialVersion<S> = {
        _id: `${scope}:${version}`,
        scope,
        user_id: userId,
        version,
        state: next,
        nonce: randomBytes(8).toString('hex'),
        base: credentials.at(scope, version - 1)?.nonce ?? null,
        created_at: new Date(),
      };
      if (!(await insertIfAbsent(rowsOf(this.model).insertOne(row as CredentialVersion)))) continue;
      if (!(await this.landed(userId, row))) continue;
      this.deps.recent?.changed(userId);
      this.deps.changes.changed(userId);
      // Readers take the newest; one left behind by a failed delete goes with the next write.
      await rowsOf(this.model)
        .deleteMany({ user_id: userId, scope, version: { $lt: version }, created_at: { $lt: new Date(Date.now() - PRUNE_AFTER_MS) } })
        .catch(() => undefined);
      return next;
    }
    throw credentialsContended();
  }

  /**
   * Whether an inserted version counts: it is the newest, or the next was decided on it. Else it
   * took again the `_id` of a version pruned while this writer was slow, below the newest: as if
   * it had lost the race.
   */
  private async landed(userId: number, row: CredentialVersion): Promise<boolean> {
    const after = await this.read(userId);
    const mine = after.versionOf(row.scope) === row.version && after.at(row.scope, row.version)?.nonce === row.nonce;
    return mine || after.at(row.scope, row.version + 1)?.base === row.nonce;
  }
}
