import type { EventPublisher } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import { userEventOf, type EventSubmission } from '@masthead/core/user-events';
import type { EventNameService } from './event-names.service.js';

interface Deps {
  names: EventNameService;
  events: EventPublisher;
  logger: Logger;
}

/** The envelope a gateway chose for an event it could not hand to the stream itself (ADR 0215). */
export interface ChosenEnvelope {
  eventId?: string | undefined;
  occurredAt?: string | undefined;
}

/** POST /user/event (see CONTEXT.md). */
export class EventSubmissionService {
  constructor(private readonly deps: Deps) {}

  /**
   * Checks and normalises, then hands the event to the stream; answers its ID. A gateway that
   * tried the stream first passes the ID it used, so a publish whose acknowledgement was lost
   * and this one are one message to JetStream (the message ID de-duplicates them).
   */
  async submit(submission: EventSubmission & ChosenEnvelope): Promise<string> {
    const payload = userEventOf(submission, await this.publicNames());
    const envelope = submission.eventId ? { id: submission.eventId, occurredAt: submission.occurredAt } : undefined;
    // Answers once JetStream acknowledged the event or the outbox holds it: never lost.
    const event = await this.deps.events.publish({ name: 'user_event', resourceId: submission.resourceId, payload }, envelope);
    return event.id;
  }

  /** The spec: a failed list lookup is an invalid name (409), not a server error. */
  private async publicNames(): Promise<ReadonlySet<string> | null> {
    try {
      return await this.deps.names.publicNames();
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'public event names could not be read');
      return null;
    }
  }
}
