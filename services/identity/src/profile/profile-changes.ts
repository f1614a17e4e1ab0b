import { fieldError, type FieldErrors } from '@masthead/core/errors';
import { codePointLength, hasLoneSurrogate, normalizeNickName, tagSlug, textProblem } from './text-rules.js';
import { profileBodyNotObject } from './profile.errors.js';

/** The plain text fields of PUT /user (document 1, section C table), as stored on the user. */
export const TEXT_FIELDS = [
  'first_name',
  'last_name',
  'country',
  'city',
  'state',
  'address',
  'ip',
  'company',
  'job',
  'zip',
  'phone',
] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

/** The spec sets no limit at action level; this is the storage limit, said out loud (ADR 0060). */
export const MAX_TEXT_LENGTH = 255;
export const NICK_NAME_LENGTH = { min: 3, max: 64 } as const;
export const TAG_LENGTH = { min: 3, max: 25 } as const;
/** Bounds the work of one replacement; far above any real tag list. */
export const MAX_TAGS = 100;
/** Bounds one request's extra (serialized), far below a document's 16 MiB. */
export const MAX_EXTRA_BYTES = 64 * 1024;
const EXTRA_KEY = /^[A-Za-z0-9_-]{1,64}$/;

/** What a valid PUT /user body asks for; absent members leave their field unchanged. */
export interface ProfileChanges {
  /** A normalized nick name, or null to clear it. */
  nickName?: string | null;
  /** Trimmed texts; null clears (an empty string was sent). */
  text: Partial<Record<TextField, string | null>>;
  extra?: Record<string, unknown>;
  languageId?: number;
  languageSlug?: string;
  /** The replacement tag slugs, in order, duplicates removed; absent unless `tags` was an array. */
  tags?: string[];
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Reads the request body: 409 incorrect_data unless it is a JSON object. */
export function parseBody(changesJson: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = changesJson ? JSON.parse(changesJson) : undefined;
  } catch {
    body = undefined;
  }
  if (!isPlainObject(body)) throw profileBodyNotObject();
  return body;
}

/**
 * Applies every rule of the PUT /user table that needs no lookup and reports all failures at
 * once (409 with error_fields). Unknown keys are ignored, as the original does.
 */
export function parseProfileChanges(body: Record<string, unknown>): ProfileChanges {
  const errors: FieldErrors = {};
  const changes: ProfileChanges = { text: {} };

  if (body['email'] !== undefined && body['email'] !== null) errors['email'] = 'cannot be changed here; use PUT /user/email';
  readNickName(body['nick_name'], changes, errors);
  for (const field of TEXT_FIELDS) readText(field, body[field], changes, errors);
  readExtra(body['extra'], changes, errors);
  readLanguage(body, changes, errors);
  readTags(body['tags'], changes, errors);

  if (Object.keys(errors).length > 0) throw fieldError(errors);
  return changes;
}

function readNickName(value: unknown, changes: ProfileChanges, errors: FieldErrors): void {
  if (value === undefined) return;
  // null clears the nick name: the spec lets us, and it is the only way to give one up.
  if (value === null) {
    changes.nickName = null;
    return;
  }
  if (typeof value !== 'string') {
    errors['nick_name'] = 'must be a string';
    return;
  }
  const normalized = normalizeNickName(value);
  const length = codePointLength(normalized);
  if (length < NICK_NAME_LENGTH.min || length > NICK_NAME_LENGTH.max) {
    errors['nick_name'] = `must have ${NICK_NAME_LENGTH.min} to ${NICK_NAME_LENGTH.max} letters, digits or _ . - after filtering`;
    return;
  }
  changes.nickName = normalized;
}

function readText(field: TextField, value: unknown, changes: ProfileChanges, errors: FieldErrors): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'string') {
    errors[field] = 'must be a string';
    return;
  }
  const trimmed = value.trim();
  const problem = textProblem(trimmed) ?? (codePointLength(trimmed) > MAX_TEXT_LENGTH ? `at most ${MAX_TEXT_LENGTH} characters` : null);
  if (problem) errors[field] = problem;
  // An empty string is the way to clear a field, since null leaves it unchanged.
  else changes.text[field] = trimmed || null;
}

function readExtra(value: unknown, changes: ProfileChanges, errors: FieldErrors): void {
  if (value === undefined || value === null) return;
  if (!isPlainObject(value)) {
    errors['extra'] = 'must be an object';
    return;
  }
  // `__proto__` would reach object prototypes on the way back to the client.
  const badKey = Object.keys(value).find((key) => !EXTRA_KEY.test(key) || key === '__proto__');
  if (badKey !== undefined) {
    errors['extra'] = 'keys are 1 to 64 letters, digits, _ or -';
    return;
  }
  const problem = storableProblem(value);
  if (problem) errors['extra'] = problem;
  else if (Buffer.byteLength(JSON.stringify(value)) > MAX_EXTRA_BYTES) errors['extra'] = `at most ${MAX_EXTRA_BYTES} bytes`;
  else changes.extra = value;
}

/** Nested keys MongoDB cannot store (`$…`, dots) and texts UTF-8 cannot hold. */
function storableProblem(value: unknown): string | null {
  // Extra values are free data (new lines allowed); only what UTF-8 cannot hold is refused.
  if (typeof value === 'string') return hasLoneSurrogate(value) ? 'must be valid Unicode text' : null;
  if (Array.isArray(value)) return value.map(storableProblem).find((problem) => problem !== null) ?? null;
  if (!isPlainObject(value)) return null;
  for (const [key, nested] of Object.entries(value)) {
    if (key === '' || key === '__proto__' || key.startsWith('$') || key.includes('.') || key.includes('\0'))
      return 'nested keys must not be empty, start with $ or contain dots';
    if (hasLoneSurrogate(key)) return 'must be valid Unicode text';
    const problem = storableProblem(nested);
    if (problem) return problem;
  }
  return null;
}

function readLanguage(body: Record<string, unknown>, changes: ProfileChanges, errors: FieldErrors): void {
  const id = body['language_id'];
  // "empty/null does not clear": both leave the language as it is.
  if (id !== undefined && id !== null && id !== '') {
    const parsed = typeof id === 'string' && /^\d{1,9}$/.test(id) ? Number(id) : id;
    if (typeof parsed === 'number' && Number.isSafeInteger(parsed) && parsed > 0) changes.languageId = parsed;
    else errors['language_id'] = 'must be a language ID';
  }
  const slug = body['language_slug'];
  if (slug !== undefined && slug !== null && slug !== '') {
    if (typeof slug === 'string' && slug.trim() && !textProblem(slug) && slug.length <= 32)
      changes.languageSlug = slug.trim().toLowerCase();
    else errors['language_slug'] = 'must be a language slug';
  }
}

function readTags(value: unknown, changes: ProfileChanges, errors: FieldErrors): void {
  // "non-array input ignored" (document 1, section C).
  if (!Array.isArray(value)) return;
  if (value.length > MAX_TAGS) {
    errors['tags'] = `at most ${MAX_TAGS} tags`;
    return;
  }
  const slugs = new Set<string>();
  for (const item of value) {
    const slug = typeof item === 'string' ? tagSlug(item) : '';
    const length = codePointLength(slug);
    if (typeof item !== 'string' || textProblem(slug) || length < TAG_LENGTH.min || length > TAG_LENGTH.max) {
      errors['tags'] = `each tag is a string of ${TAG_LENGTH.min} to ${TAG_LENGTH.max} characters`;
      return;
    }
    slugs.add(slug);
  }
  changes.tags = [...slugs];
}
