import { withMarks, witnessOf, type EventMarks, type EventWitness } from '@masthead/core/events';
import { insertWithNextId, rowsOf } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { userScope, type CredentialRepository, type MemberCredentials } from '../credentials/credential.repository.js';
import type { MemberChangeListener } from './profile-cache.js';
import { userModel, type UserCredentials, type UserRecord } from './user.schema.js';

/** A user without credentials: what every non-privileged read returns. */
export type UserView = Omit<UserRecord, 'password_hash'>;
export type NewUser = Omit<UserRecord, '_id' | 'created_at' | 'updated_at'>;
/** What `update` writes: never a security field (those are credential versions, docs/adr/0210). */
export type ProfileFields = Omit<NewUser, keyof UserCredentials>;

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

/** The user row with its newest security state (docs/adr/0210); the row's own fields are version 0. */
export function withUserCredentials<T extends UserView>(row: T, credentials: MemberCredentials): T {
  const state = credentials.stateOf<UserCredentials>(userScope(row._id));
  if (!state) return row;
  const { active, role } = state;
  return 'password_hash' in row ? ({ ...row, active, role, password_hash: state.password_hash } as T) : { ...row, active, role };
}

export interface UserRepositoryDeps {
  db: Connection;
  /** Told of every write, after it (the profile cache, ADR 0191). */
  changes: MemberChangeListener;
  credentials: CredentialRepository;
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

  /**
   * The session check's and the profile's read: through the driver (ADR 0191), beside the
   * member's credentials (`credentials`: a read the caller shares with the relationship's).
   */
  async findById(id: number, credentials = this.deps.credentials.read(id)): Promise<UserView | null> {
    const [row, read] = await Promise.all([rowsOf(this.model).findOne({ _id: id }, { projection: WITHOUT_CREDENTIALS }), credentials]);
    return row && withUserCredentials(row as UserView, read);
  }

  /**
   * The member's credentials (every scope), for reads that share them: findById,
   * RelationshipRepository.find. `recent`: possibly as read moments ago (docs/adr/0216).
   */
  credentialsOf(id: number, recent = false): Promise<MemberCredentials> {
    return recent ? this.deps.credentials.readRecent(id) : this.deps.credentials.read(id);
  }

  /** The user with this (normalized) email, without credentials; null when none. */
  async findByEmail(email: string): Promise<UserView | null> {
    const row = await this.model.findOne({ email }, WITHOUT_CREDENTIALS).lean<UserView>().exec();
    return row && withUserCredentials(row, await this.deps.credentials.read(row._id));
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
  async findCredentialsByEmail(email: string): Promise<UserRecord | null> {
    const row = await this.findStoredByEmail(email);
    return row && withUserCredentials(row, await this.deps.credentials.read(row._id));
  }

  /**
   * Privileged, as findCredentialsByEmail, but the row as stored: its security fields are version
   * 0 until `withUserCredentials` applies the member's credentials. Sign-in's read: through the
   * driver (ADR 0191), so that it reads the credentials beside the relationship.
   */
  findStoredByEmail(email: string): Promise<UserRecord | null> {
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
  async update(id: number, changes: Partial<ProfileFields>, marks?: EventMarks): Promise<UserView | null> {
    const set = marks && Object.keys(changes).length === 0 ? {} : { $set: { ...changes, updated_at: new Date() } };
    const [updated, credentials] = await Promise.all([
      this.model.findOneAndUpdate({ _id: id }, withMarks(set, marks), { new: true }).lean<UserRecord>().exec(),
      this.deps.credentials.read(id),
    ]);
    this.deps.changes.changed(id);
    if (!updated) return null;
    // FerretDB's findAndModify takes no projection: the hash is dropped here instead.
    delete (updated as Partial<UserRecord>).password_hash;
    return withUserCredentials(updated as UserView, credentials);
  }

  /**
   * Writes the user's next security state (docs/adr/0210): `decide` gets the newest one (null
   * when there is no user) and returns the next, or null to write nothing. Returns what it wrote.
   */
  changeCredentials(id: number, decide: (current: UserCredentials | null) => UserCredentials | null): Promise<UserCredentials | null> {
    const stored = async () => {
      const row = await this.model.findOne({ _id: id }, { password_hash: 1, active: 1, role: 1 }).lean<UserRecord>().exec();
      return row && { password_hash: row.password_hash ?? null, active: row.active, role: row.role };
    };
    return this.deps.credentials.change(id, userScope(id), stored, decide);
  }

  /** Sets the global password (a reset). */
  async setPasswordHash(id: number, passwordHash: string): Promise<void> {
    await this.changeCredentials(id, (current) => current && { ...current, password_hash: passwordHash });
  }

  /** Replaces the password hash only while it is still `current` (a rehash at sign-in). */
  async replacePasswordHash(id: number, current: string, fresh: string): Promise<void> {
    await this.changeCredentials(id, (state) => (state?.password_hash === current ? { ...state, password_hash: fresh } : null));
  }

  /** The witness of events about user `id` (docs/adr/0180). */
  witness(id: number): EventWitness {
    return witnessOf(this.model, id);
  }
}
