import { eventMarks } from '@masthead/core/events';
import { Schema, type Connection, type Model } from 'mongoose';

/**
 * `service_account` marks the user a service account acts as (document 2, section I): it has no
 * password and is never a member of a resource; only the accounts service creates it.
 */
export type GlobalRole = 'user' | 'admin' | 'root' | 'service_account';

export interface UserRecord {
  _id: number;
  email: string;
  /** argon2id PHC string; absent for accounts that only sign in through a provider. */
  password_hash: string | null;
  active: boolean;
  email_confirmed: boolean;
  role: GlobalRole;
  nick_name: string | null;
  first_name: string | null;
  last_name: string | null;
  photo: string | null;
  country: string | null;
  city: string | null;
  state: string | null;
  address: string | null;
  zip: string | null;
  phone: string | null;
  company: string | null;
  job: string | null;
  language_id: number | null;
  /** The address a member gave in PUT /user (not the request's); not in the projection (ADR 0060). */
  ip?: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The security fields: since docs/adr/0210 their newest state is a credential version; the
 * user row keeps the values it was created with (version 0) and no update writes them.
 */
export type UserCredentials = Pick<UserRecord, 'password_hash' | 'active' | 'role'>;

const nullableString = { type: String, default: null };

const userSchema = new Schema<UserRecord>(
  {
    _id: { type: Number, required: true },
    email: { type: String, required: true },
    password_hash: nullableString,
    active: { type: Boolean, required: true, default: true },
    email_confirmed: { type: Boolean, required: true, default: false },
    role: { type: String, required: true, default: 'user' },
    nick_name: nullableString,
    first_name: nullableString,
    last_name: nullableString,
    photo: nullableString,
    country: nullableString,
    city: nullableString,
    state: nullableString,
    address: nullableString,
    zip: nullableString,
    phone: nullableString,
    company: nullableString,
    job: nullableString,
    language_id: { type: Number, default: null },
    ip: nullableString,
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'users', versionKey: false },
);
// A user witnesses the events of its profile updates (docs/adr/0180).
userSchema.plugin(eventMarks);
// Serves sign-in and registration (email → user) and keeps emails unique.
userSchema.index({ email: 1 }, { unique: true });
// Serves the distinct country texts of GET /countries (grouped branch) from the index alone.
userSchema.index({ country: 1 });

export const userModel = (db: Connection): Model<UserRecord> => db.models['User'] ?? db.model<UserRecord>('User', userSchema);
