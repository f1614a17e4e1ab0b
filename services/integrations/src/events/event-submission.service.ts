import { fieldError } from '@masthead/core/errors';
import type { DomainEvents, EventPublisher } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { EventNameService } from './event-names.service.js';
import { invalidEventName, invalidEventValue } from './event.errors.js';
import { normaliseText, sanitiseEmail } from './normalise.js';

/** Bounds of ours (CONTEXT.md): one event stays far below the stream's 1 MB message limit. */
const MAX_VALUE = 2048;
const MAX_DATA_BYTES = 16 * 1024;
const MAX_CONTENT_KEY = 512;
const MAX_EMAIL = 254;

/** A submission as the gateway decoded it, with who and where it resolved. */
export interface EventSubmission {
  resourceId: number;
  name: string;
  value: string;
  /** The `data` object as JSON text. */
  dataJson: string;
  contentKey?: string;
  customRecipientEmail?: string;
  userId: number;
  sessionId: number;
  guestSession: string;
  ip: string;
  userAgent: string;
  referrer: string;
  host: string;
  language: string;
  languageId?: number;
}

interface Deps {
  names: EventNameService;
  events: EventPublisher;
  logger: Logger;
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

/** POST /user/event (see CONTEXT.md). */
export class EventSubmissionService {
  constructor(private readonly deps: Deps) {}

  /** Checks and normalises, then hands the event to the stream; answers its ID. */
  async submit(submission: EventSubmission): Promise<string> {
    const name = normaliseText(submission.name);
    if (!name || !(await this.isPublic(name))) throw invalidEventName();
    const value = normaliseText(submission.value);
    if (!value || value.length > MAX_VALUE) throw invalidEventValue();
    const data = dataObject(submission.dataJson);
    const contentKey = submission.contentKey?.trim() || undefined;
    if (contentKey !== undefined && contentKey.length > MAX_CONTENT_KEY)
      throw fieldError({ content_key: `content_key must be at most ${MAX_CONTENT_KEY} characters` });
    const email = submission.customRecipientEmail === undefined ? undefined : sanitiseEmail(submission.customRecipientEmail);
    if (email !== undefined && email.length > MAX_EMAIL)
      throw fieldError({ custom_recipient_email: `custom_recipient_email must be at most ${MAX_EMAIL} characters` });

    const payload: DomainEvents['user_event'] = {
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
    // Answers once JetStream acknowledged the event or the outbox holds it: never lost.
    const event = await this.deps.events.publish({ name: 'user_event', resourceId: submission.resourceId, payload });
    return event.id;
  }

  /** The spec: a failed list lookup is an invalid name (409), not a server error. */
  private async isPublic(name: string): Promise<boolean> {
    try {
      return (await this.deps.names.publicNames()).has(name);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'public event names could not be read');
      return false;
    }
  }
}
