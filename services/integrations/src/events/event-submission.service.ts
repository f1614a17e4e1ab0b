import type { EventPublisher } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import { readPublicNames, userEventOf, type EventSubmission } from '@masthead/core/user-events';
import type { SubmitEventRequest } from '@masthead/proto/integrations/public_events';
import type { EventNameService } from './event-names.service.js';

interface Deps {
  names: EventNameService;
  events: EventPublisher;
  logger: Logger;
}

/** POST /user/event (see CONTEXT.md). */
export class EventSubmissionService {
  constructor(private readonly deps: Deps) {}

  /**
   * Checks and normalises, then hands the event to the stream; answers its ID. A gateway that
   * tried the stream first passes the ID it used, so a publish whose acknowledgement was lost
   * and this one are one message to JetStream (the message ID de-duplicates them).
   */
  async submit(submission: EventSubmission & Pick<SubmitEventRequest, 'eventId' | 'occurredAt'>): Promise<string> {
    const payload = userEventOf(submission, await readPublicNames(() => this.deps.names.publicNames(), this.deps.logger));
    const envelope = submission.eventId ? { id: submission.eventId, occurredAt: submission.occurredAt } : undefined;
    // Answers once JetStream acknowledged the event or the outbox holds it: never lost.
    const event = await this.deps.events.publish({ name: 'user_event', resourceId: submission.resourceId, payload }, envelope);
    return event.id;
  }
}
