import { withMarks, witnessOf, type EventMarks, type EventWitness } from '@masthead/core/events';
import { insertWithNextId, rowsOf } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import type { MemberChangeListener } from './profile-cache.js';
import { userModel, type UserRecord } from './user.schema.js';

/** A user without credentials: what every non-privileged read returns. */
export type UserView = Omit<UserRecord, 'password_hash'>;
export type NewUser = Omit<UserRecord, '_id' | 'created_at' | 'updated_at'>;

/** Profile fields of a user nobody has filled in yet. */
export const EMPTY_PROFILE = {
  nick_name: null,
  first_name: null,
  last_name: null,
  photo: null,
  country: null,
  city: null,
  state: null,
  address: null,
  zip: null,
  phone: null,
  company: null,
  job: null,
  language_id: null,
} satisfies Partial<NewUser>;

const WITHOUT_CREDENTIALS = { password_hash: 0 } as const;

export interface UserRepositoryDeps {
  db: Connection;
  /** Told of every write, after it (the profile cache, ADR 0191). */
  changes: MemberChangeListener;
}

export class UserRepository {
  private readonly model: Model<UserRecord>;
  private readonly db: Connection;

  constructor(private readonly deps: UserRepositoryDeps) {
    this.db = deps.db;
    this.model = userModel(deps.db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** The session check's and the profile's read: through the driver (ADR 0191). */
  async findById(id: number): Promise<UserView | null> {
    return (await rowsOf(this.model).findOne({ _id: id }, { projection: WITHOUT_CREDENTIALS })) as UserView | null;
  }

  /** The user with this (normalized) email, without credentials; null when none. */
  findByEmail(email: string): Promise<UserView | null> {
    return this.model.findOne({ email }, WITHOUT_CREDENTIALS).lean<UserView>().exec();
  }

  /** The ID of the user with this (normalized) email, or null: existence and ID checks. */
  async findIdByEmail(email: string): Promise<number | null> {
    const row = await this.model.findOne({ email }, { _id: 1 }).lean<Pick<UserRecord, '_id'>>().exec();
    return row?._id ?? null;
  }

  /**
   * Privileged (STYLE.md 2, Pool vs PrivilegedPool): the only read that returns the password
   * hash. For the callers that check a password: sign-in, registration into a second resource,
   * email change. Everyone else reads through findByEmail or findIdByEmail.
   */
  findCredentialsByEmail(email: string): Promise<UserRecord | null> {
    // Sign-in's read: through the driver (ADR 0191).
    return rowsOf(this.model).findOne({ email });
  }

  /**
   * The distinct country texts of all users (every resource), and whether some user has none
   * (null, missing or empty). Serves the grouped branch of GET /countries.
   */
  async countries(): Promise<{ countries: string[]; hasUnset: boolean }> {
    const [values, unset] = await Promise.all([
      this.model.distinct('country').exec(),
      this.model.exists({ $or: [{ country: null }, { country: '' }] }).exec(),
    ]);
    const countries = values.filter((value): value is string => typeof value === 'string' && value !== '');
    return { countries, hasUnset: unset !== null };
  }

  async create(user: NewUser): Promise<UserRecord> {
    const now = new Date();
    const created = await insertWithNextId(this.db, this.model, { ...user, created_at: now, updated_at: now });
    this.deps.changes.changed(created._id);
    return created;
  }

  /**
   * `marks` (`markedBy` of @masthead/core/events) mark the row with the events of this write in
   * the same operation (docs/adr/0180); with no changes only the marks are written. Returns the
   * user as written (one round trip: callers answer with it), null when there is none.
   */
  async update(id: number, changes: Partial<NewUser>, marks?: EventMarks): Promise<UserView | null> {
    const set = marks && Object.keys(changes).length === 0 ? {} : { $set: { ...changes, updated_at: new Date() } };
    // FerretDB's findAndModify takes no projection: the hash is dropped here instead.
    const updated = await this.model.findOneAndUpdate({ _id: id }, withMarks(set, marks), { new: true }).lean<UserRecord>().exec();
    this.deps.changes.changed(id);
    if (!updated) return null;
    delete (updated as Partial<UserRecord>).password_hash;
    return updated;
  }

  /** Replaces the password hash only while it is still `current` (a rehash at sign-in). */
  async replacePasswordHash(id: number, current: string, fresh: string): Promise<void> {
    await this.model.updateOne({ _id: id, password_hash: current }, { $set: { password_hash: fresh, updated_at: new Date() } }).exec();
    this.deps.changes.changed(id);
  }

  /** The witness of events about user `id` (docs/adr/0180). */
  witness(id: number): EventWitness {
    return witnessOf(this.model, id);
  }
}
