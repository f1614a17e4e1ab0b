import { Events, StringCodec, type JetStreamClient } from 'nats';
import { countEvent } from '../metrics/index.js';
import type { DomainEvent } from './publisher.js';
import { subjectOf } from './publisher.js';
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

  constructor(
    nats: NatsLink,
    private readonly source: string,
    private readonly ackTimeoutMs: number,
  ) {
    void Promise.resolve(nats)
      .then(async (connection) => {
        this.jetstream = connection.jetstream();
        this.connected = !connection.isClosed();
        for await (const status of connection.status()) {
          if (status.type === Events.Disconnect) this.connected = false;
          if (status.type === Events.Reconnect) this.connected = true;
        }
      })
      .catch(() => {
        this.connected = false;
      });
  }

  async send(event: DomainEvent): Promise<boolean> {
    if (!this.jetstream || !this.connected) return false;
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
}
