import type { DomainEvents, EventName } from './catalogue.js';
import { newEventId } from './outbox.js';
import { EVENT_SUBJECT_PREFIX } from './stream.js';

/** The envelope every domain event travels in; `N` narrows the name and so the payload. */
export interface DomainEvent<N extends EventName = EventName> {
  id: string;
  name: N;
  source: string;
  occurred_at: string;
  resource_id: number | null;
  payload: DomainEvents[N];
}

/** What a publisher says: the name decides the payload's type (catalogue.ts). */
export interface PublishInput<N extends EventName> {
  name: N;
  resourceId?: number | null;
  payload: DomainEvents[N];
}

/**
 * The ID and time of an event another process chose and may have handed to the stream already
 * (the gateway's direct publish, ADR 0215): the same ID makes both one message to JetStream.
 * One that is not an event ID (a UUID) or a time is replaced by a new one.
 */
export interface ChosenEnvelope {
  id: string;
  occurredAt?: string | undefined;
}

const EVENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The envelope of a new event, under a chosen ID and time where they are valid. */
export function eventEnvelope<N extends EventName>(
  source: string,
  { name, resourceId = null, payload }: PublishInput<N>,
  chosen?: ChosenEnvelope,
): DomainEvent<N> {
  const occurredAt = chosen?.occurredAt ? new Date(chosen.occurredAt) : new Date();
  return {
    id: chosen && EVENT_ID.test(chosen.id) ? chosen.id : newEventId(),
    name,
    source,
    occurred_at: (Number.isNaN(occurredAt.getTime()) ? new Date() : occurredAt).toISOString(),
    resource_id: resourceId,
    payload,
  };
}

/** The stream subject of an event name. */
export const subjectOf = (name: EventName): string => `${EVENT_SUBJECT_PREFIX}${name}`;
