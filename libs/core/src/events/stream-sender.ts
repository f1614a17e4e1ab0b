import { StringCodec, type JetStreamClient } from 'nats';
import { followConnection } from './connection.js';
import { countEvent } from '../metrics/index.js';
import type { DomainEvent } from './envelope.js';
import { subjectOf } from './envelope.js';
import type { NatsLink } from './subscribe.js';

const codec = StringCodec();

/**
 * Hands events to JetStream for a process without an outbox of its own (the gateway, ADR 0215).
 * `send` answers whether JetStream acknowledged the event: false at once while NATS is away (no
 * wait for an acknowledgement that cannot come), and false when the acknowledgement did not come
 * in time; the caller then hands the event, under the same ID, to a service whose publisher
 * keeps it. The ID is JetStream's message ID, so an event stored without its acknowledgement
 * reaching us is stored once.
 */
export class StreamSender {
  private jetstream: JetStreamClient | undefined;
  private connected = false;
  private turn: Promise<void> | undefined;

  constructor(
    nats: NatsLink,
    private readonly source: string,
    private readonly ackTimeoutMs: number,
  ) {
    followConnection(nats, {
      opened: (connection) => (this.jetstream = connection.jetstream()),
      changed: (connected) => (this.connected = connected),
    });
  }

  async send(event: DomainEvent): Promise<boolean> {
    if (!this.jetstream || !this.connected) return false;
    await this.nextTurn();
    try {
      await this.jetstream.publish(subjectOf(event.name), codec.encode(JSON.stringify(event)), {
        msgID: event.id,
        timeout: this.ackTimeoutMs,
      });
    } catch {
      return false;
    }
    countEvent(this.source, 'direct');
    return true;
  }

  /**
   * The publishes of one turn of the event loop go out together: nats.js writes what was queued
   * within one microtask run in one socket write, and requests arriving in the same turn would
   * otherwise each make their own (a write system call per event).
   */
  private nextTurn(): Promise<void> {
    return (this.turn ??= new Promise((resolve) =>
      setImmediate(() => {
        this.turn = undefined;
        resolve();
      }),
    ));
  }
}
