import { fieldError } from '../errors/index.js';
import type { DomainEvents } from '../events/catalogue.js';
import type { Logger } from '../logging/index.js';
import { normaliseText, sanitiseEmail } from './normalise.js';
import { invalidEventName, invalidEventValue } from './user-event.errors.js';

/** Bounds of ours (docs/adr/0172): one event stays far below the stream's 1 MB message limit. */
const MAX_VALUE = 2048;
const MAX_DATA_BYTES = 16 * 1024;
const MAX_CONTENT_KEY = 512;
const MAX_EMAIL = 254;

/** A POST /user/event submission as the gateway decoded it, with who and where it resolved. */
export interface EventSubmission {
  resourceId: number;
  name: string;
  value: string;
  /** The `data` object as JSON text. */
  dataJson: string;
  contentKey?: string | undefined;
  customRecipientEmail?: string | undefined;
  userId: number;
  sessionId: number;
  guestSession: string;
  ip: string;
  userAgent: string;
  referrer: string;
  host: string;
  language: string;
  languageId?: number | undefined;
}

const orNull = <T>(value: T | undefined | '' | 0): T | null => (value === undefined || value === '' || value === 0 ? null : value);

/** `data`: an object of at most MAX_DATA_BYTES as JSON ('' or null: none, the spec's default `{}`). */
function dataObject(json: string): Record<string, unknown> {
  if (Buffer.byteLength(json) > MAX_DATA_BYTES) throw fieldError({ data: `data must be at most ${MAX_DATA_BYTES} bytes as JSON` });
  let data: unknown;
  try {
    data = json.trim() === '' ? {} : JSON.parse(json);
  } catch {
    data = undefined;
  }
  if (data === null) return {};
  if (typeof data !== 'object' || Array.isArray(data)) throw fieldError({ data: 'data must be an object' });
  return data as Record<string, unknown>;
}

/**
 * The public event names, or null when they cannot be read: the spec answers a failed list
 * lookup as an invalid name (409), not as a server error.
 */
export async function readPublicNames(load: () => Promise<ReadonlySet<string>>, logger: Logger): Promise<ReadonlySet<string> | null> {
  try {
    return await load();
  } catch (error) {
    logger.warn({ err: error }, 'public event names could not be read');
    return null;
  }
}

/**
 * The `user_event` of a submission, checked and normalised in the spec's order (document 2 L):
 * the name against the public names (null: the list could not be read, see `readPublicNames`), then the value, then our bounds. Throws the documented 409s.
 */
export function userEventOf(submission: EventSubmission, publicNames: ReadonlySet<string> | null): DomainEvents['user_event'] {
  const name = normaliseText(submission.name);
  if (!name || !publicNames?.has(name)) throw invalidEventName();
  const value = normaliseText(submission.value);
  if (!value || value.length > MAX_VALUE) throw invalidEventValue();
  const data = dataObject(submission.dataJson);
  const contentKey = submission.contentKey?.trim() || undefined;
  if (contentKey !== undefined && contentKey.length > MAX_CONTENT_KEY)
    throw fieldError({ content_key: `content_key must be at most ${MAX_CONTENT_KEY} characters` });
  const email = submission.customRecipientEmail === undefined ? undefined : sanitiseEmail(submission.customRecipientEmail);
  if (email !== undefined && email.length > MAX_EMAIL)
    throw fieldError({ custom_recipient_email: `custom_recipient_email must be at most ${MAX_EMAIL} characters` });
  return {
    name,
    value,
    data,
    content_key: contentKey ?? null,
    custom_recipient_email: orNull(email),
    user_id: orNull(submission.userId),
    session_id: orNull(submission.sessionId),
    guest_session: orNull(submission.guestSession),
    ip: orNull(submission.ip),
    user_agent: orNull(submission.userAgent),
    referrer: orNull(submission.referrer),
    host: orNull(submission.host),
    language: orNull(submission.language),
    language_id: submission.languageId ?? null,
  };
}
