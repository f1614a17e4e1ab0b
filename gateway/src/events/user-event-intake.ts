import { TtlCache } from '@masthead/core/cache';
import { eventEnvelope, onEvent, type StreamSender, type NatsLink } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import { readPublicNames, userEventOf } from '@masthead/core/user-events';
import type { SubmitEventRequest } from '@masthead/proto/integrations/public_events';
import type { ServiceClients } from '../clients.js';

type PublicEventsClient = ServiceClients['publicEvents'];

/** The event is integrations' (its catalogue entry, its consumers): the gateway only carries it. */
const EVENT_SOURCE = 'integrations';

/**
 * POST /user/event without a hop (ADR 0215): the gateway checks a submission against the public
 * event names (integrations' list, cached here and dropped when an operator changes it,
 * `event_names_updated`) with the checks integrations runs (`userEventOf`), and hands the event
 * to JetStream itself. Only when the stream does not acknowledge it in time does it call
 * integrations, under the same event ID, whose publisher keeps it in its outbox until the stream
 * takes it: an accepted event is never lost, and never stored twice.
 */
export class UserEventIntake {
  private readonly names: TtlCache<'public', ReadonlySet<string>>;

  constructor(
    private readonly deps: { publicEvents: PublicEventsClient; stream: StreamSender; logger: Logger },
    namesTtlMs: number,
  ) {
    this.names = new TtlCache(namesTtlMs);
  }

  listen(nats: NatsLink, logger: Logger): void {
    onEvent(nats, 'event_names_updated', logger, () => this.names.clear());
  }

  async submit(request: SubmitEventRequest, options?: Parameters<PublicEventsClient['submitEvent']>[1]): Promise<{ eventId: string }> {
    const payload = userEventOf(request, await readPublicNames(() => this.publicNames(), this.deps.logger));
    const event = eventEnvelope(EVENT_SOURCE, { name: 'user_event', resourceId: request.resourceId, payload });
    if (await this.deps.stream.send(event)) return { eventId: event.id };
    return this.deps.publicEvents.submitEvent({ ...request, eventId: event.id, occurredAt: event.occurred_at }, options);
  }

  /** Integrations' list of names, the public ones. */
  private publicNames(): Promise<ReadonlySet<string>> {
    return this.names.getOrLoad('public', async () => {
      const { items } = await this.deps.publicEvents.listEventNames({}, { idempotent: true });
      return new Set(items.filter((item) => !item.private).map((item) => item.name));
    });
  }
}

/** The public-events client with SubmitEvent taken by the intake. */
export function withUserEventIntake(publicEvents: PublicEventsClient, intake: UserEventIntake): PublicEventsClient {
  return { ...publicEvents, submitEvent: (request, options) => intake.submit(request, options) };
}
