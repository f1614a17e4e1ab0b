import { EVENT_SUBJECT_PREFIX, type DomainEvent } from '@masthead/core/events';
import { StringCodec, type NatsConnection } from 'nats';

const codec = StringCodec();

/**
 * Records every domain event published from now on. JetStream publishes reach core NATS
 * subscribers too; `flush` makes sure the subscription is registered before the test acts.
 */
export async function recordEvents(nats: NatsConnection): Promise<DomainEvent[]> {
  const events: DomainEvent[] = [];
  const subscription = nats.subscribe(`${EVENT_SUBJECT_PREFIX}>`);
  void (async () => {
    for await (const message of subscription) events.push(JSON.parse(codec.decode(message.data)) as DomainEvent);
  })();
  await nats.flush();
  return events;
}
