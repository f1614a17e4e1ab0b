import { eventMarks } from '@masthead/core/events';
import { Schema, type Connection, type Model } from 'mongoose';

/** One signed-in device or client. Its ID is public (`session_id`). */
export interface SessionRecord {
  _id: number;
  user_id: number;
  /** 0 when signed in without a resource. */
  resource_id: number;
  /**
   * The expiry given at sign-in, never moved after the insert: only ending writes (`revoked_at`,
   * `compromised_at`) update a session, so a refresh cannot undo them on FerretDB (ADR 0204). A
   * refresh's later expiry lives in its own token record. Rows of earlier versions may hold a
   * later expiry, moved by their refreshes.
   */
  expires_at: Date;
  /** Set by logout; a revoked session fails the shared checks like an expired one. */
  revoked_at: Date | null;
  /** Set when a consumed refresh record of this session family is presented again. */
  compromised_at: Date | null;
  source_type: string | null;
  guest_session: string | null;
  ip: string | null;
  user_agent: string | null;
  created_at: Date;
}

/** What credentials of a session are stored under: the session without its state. */
export type SessionRef = Pick<SessionRecord, '_id' | 'user_id' | 'resource_id'>;

/**
 * Lookup record: token hash → session. Keyed by `_id` because it is read on every request. Each
 * token has its own expiry: a refresh issues a new token without cutting short the old one, so
 * requests a client still has in flight keep working, and an old token never outlives its term.
 */
export interface SessionTokenRecord {
  _id: string;
  session_id: number;
  /** Absent on tokens of earlier versions: they follow their session's expiry (ADR 0204). */
  expires_at?: Date;
}

/**
 * A stored refresh record. Since ADR 0217 it alone says whether it may be used: its use deletes
 * it (after the claim), its session's compromise marks it and every other ending deletes it, so a
 * kept record is refreshed with this one read. Records of earlier versions (`tracks_session`
 * absent) are also checked against their session and their claim.
 */
export interface RefreshTokenRecord {
  _id: string;
  session_id: number;
  user_id: number;
  resource_id: number;
  expires_at: Date;
  created_at: Date;
  tracks_session?: boolean;
  compromised_at?: Date | null;
}

/** A one-time authorization code for response types `code` and `code_and_token`. */
export interface AuthCodeRecord {
  _id: string;
  session_id: number;
  user_id: number;
  resource_id: number;
  redirect_uri: string;
  expires_at: Date;
  used_at: Date | null;
}

const sessionSchema = new Schema<SessionRecord>(
  {
    _id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    expires_at: { type: Date, required: true },
    revoked_at: { type: Date, default: null },
    compromised_at: { type: Date, default: null },
    source_type: { type: String, default: null },
    guest_session: { type: String, default: null },
    ip: { type: String, default: null },
    user_agent: { type: String, default: null },
    created_at: { type: Date, required: true },
  },
  { collection: 'sessions', versionKey: false },
);
// A session witnesses the event of its start (docs/adr/0180).
sessionSchema.plugin(eventMarks);
// Serves "sessions of a user in a resource" (device limits, logout everywhere).
sessionSchema.index({ user_id: 1, resource_id: 1 });

const sessionTokenSchema = new Schema<SessionTokenRecord>(
  { _id: { type: String, required: true }, session_id: { type: Number, required: true }, expires_at: { type: Date, required: true } },
  { collection: 'session_tokens', versionKey: false },
);
// Serves a session's newest token: how long the session lives (device limits, ADR 0204).
sessionTokenSchema.index({ session_id: 1 });

/**
 * A use of a one-time secret (refresh record or authorization code), keyed by its hash. The
 * insert is the claim: two concurrent uses cannot both win, on MongoDB or FerretDB (whose
 * conditional updates are read-then-write, DESIGN.md).
 */
export interface SecretUseRecord {
  _id: string;
  used_at: Date;
  /**
   * A refresh claim's answer, sealed with a key only the presented refresh token yields
   * (rotation-seal.ts), so that a second use within the reuse window gets the same credentials
   * (ADR 0086). Erased once `reuse_until` has passed.
   */
  reuse?: string;
  reuse_until?: Date;
  /** A refresh claim's session (ADR 0217): its record is gone once used, the claim answers for it. */
  session_id?: number;
  user_id?: number;
  resource_id?: number;
}

const secretUseSchema = new Schema<SecretUseRecord>(
  {
    _id: { type: String, required: true },
    used_at: { type: Date, required: true },
    reuse: { type: String },
    reuse_until: { type: Date },
    session_id: { type: Number },
    user_id: { type: Number },
    resource_id: { type: Number },
  },
  { collection: 'secret_uses', versionKey: false },
);
// Serves the sweep that erases sealed answers whose reuse window has passed.
secretUseSchema.index({ reuse_until: 1 });

const refreshTokenSchema = new Schema<RefreshTokenRecord>(
  {
    _id: { type: String, required: true },
    session_id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    expires_at: { type: Date, required: true },
    created_at: { type: Date, required: true },
    tracks_session: { type: Boolean },
    compromised_at: { type: Date },
  },
  { collection: 'refresh_tokens', versionKey: false },
);
// Serves POST /cleanup-refresh (all refresh records of a user).
refreshTokenSchema.index({ user_id: 1 });
// Serves logout (the refresh records of one session).
refreshTokenSchema.index({ session_id: 1 });

const authCodeSchema = new Schema<AuthCodeRecord>(
  {
    _id: { type: String, required: true },
    session_id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    // '' when the code was issued without a destination (refresh in a code mode).
    redirect_uri: { type: String, default: '' },
    expires_at: { type: Date, required: true },
    used_at: { type: Date, default: null },
  },
  { collection: 'auth_codes', versionKey: false },
);

export interface SessionModels {
  sessions: Model<SessionRecord>;
  tokens: Model<SessionTokenRecord>;
  refreshTokens: Model<RefreshTokenRecord>;
  authCodes: Model<AuthCodeRecord>;
  secretUses: Model<SecretUseRecord>;
}

export function sessionModels(db: Connection): SessionModels {
  return {
    sessions: db.models['Session'] ?? db.model<SessionRecord>('Session', sessionSchema),
    tokens: db.models['SessionToken'] ?? db.model<SessionTokenRecord>('SessionToken', sessionTokenSchema),
    refreshTokens: db.models['RefreshToken'] ?? db.model<RefreshTokenRecord>('RefreshToken', refreshTokenSchema),
    authCodes: db.models['AuthCode'] ?? db.model<AuthCodeRecord>('AuthCode', authCodeSchema),
    secretUses: db.models['SecretUse'] ?? db.model<SecretUseRecord>('SecretUse', secretUseSchema),
  };
}
