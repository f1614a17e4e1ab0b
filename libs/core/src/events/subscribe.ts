import { StringCodec, type NatsConnection, type Subscription } from 'nats';
import type { Logger } from 'pino';
import type { EventName } from './catalogue.js';
import type { DomainEvent } from './envelope.js';
import { EVENT_SUBJECT_PREFIX } from './stream.js';

const codec = StringCodec();

/**
 * Listens to one event name on plain NATS (JetStream publishes are delivered to core
 * subscribers too). For cache invalidation only: a missed message costs at most one TTL of
 * staleness, so no durable consumer is needed. The handler gets the payload type of its name
 * (catalogue.ts); the message is one our own publishers wrote, so it is not validated again,
 * and a handler that throws on a malformed one only logs it.
 */
export function onEvent<N extends EventName>(
  nats: NatsLink,
  name: N,
  logger: Logger,
  handler: (event: DomainEvent<N>) => void,
): EventListener {
  let subscription: Subscription | undefined;
  let stopped = false;
  void (async () => {
    // A connection still being made subscribes once it is up (a missed message: one TTL stale).
    const connection = await nats;
    if (stopped) return;
    subscription = connection.subscribe(`${EVENT_SUBJECT_PREFIX}${name}`);
    for await (const message of subscription) {
      try {
        handler(JSON.parse(codec.decode(message.data)) as DomainEvent<N>);
      } catch (error) {
        logger.warn({ err: error, subject: message.subject }, 'unreadable event ignored');
      }
    }
  })().catch((error: unknown) => logger.warn({ err: error, event: name }, 'event listener stopped'));
  return {
    unsubscribe() {
      stopped = true;
      subscription?.unsubscribe();
    },
  };
}

/** A listener of `onEvent`; `unsubscribe` also stops one whose connection is still being made. */
export interface EventListener {
  unsubscribe(): void;
}

/**
 * A NATS connection, or one still being made: NATS may be down while a process starts, and the
 * process starts anyway (events wait in its outbox, caches expire by TTL) (docs/adr/0182).
 */
export type NatsLink = NatsConnection | Promise<NatsConnection>;

/** The connection when it is made already, else undefined (never waits). */
export const settledNow = (link: NatsLink): Promise<NatsConnection | undefined> =>
  Promise.race([Promise.resolve(link), Promise.resolve(undefined)]);
