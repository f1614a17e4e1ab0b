import type { JetStreamClient, NatsConnection } from 'nats';
import { StringCodec } from 'nats';
import type { Logger } from 'pino';
import { followConnection } from './connection.js';
import type { OutboxRecord } from './outbox.js';
import { ensureEventStream } from './stream.js';
import type { NatsLink } from './subscribe.js';

const codec = StringCodec();

/**
 * A process's way to the event stream: knows whether NATS is up (so that no send waits for an
 * acknowledgement that cannot come) and makes sure the stream exists before the first send.
 */
export class EventBus {
  private link: { nats: NatsConnection; jetstream: JetStreamClient } | undefined;
  private streamReady: Promise<boolean> = Promise.resolve(false);
  private up = false;
  private readonly connectedListeners: (() => void)[] = [];

  constructor(
    nats: NatsLink,
    private readonly streamReplicas: number,
    private readonly logger: Logger,
  ) {
    followConnection(nats, {
      opened: (connection) => {
        this.link = { nats: connection, jetstream: connection.jetstream() };
        this.streamReady = this.ensureStream();
      },
      changed: (now) => {
        this.up = now;
        if (now) for (const listener of this.connectedListeners) listener();
      },
    });
  }

  /** `listener` hears every (re)connection, once the bus itself counts as connected. */
  onConnected(listener: () => void): void {
    this.connectedListeners.push(listener);
  }

  get connected(): boolean {
    return this.up;
  }

  /** JetStream stores it (or already has it: the message ID makes a repeat a no-op). */
  async send(record: OutboxRecord, timeout?: number): Promise<void> {
    const link = this.link;
    if (!link) throw new Error('NATS not connected yet');
    if (!(await this.streamExists())) throw new Error('event stream not ready');
    await link.jetstream.publish(record.subject, codec.encode(record.payload), { msgID: record._id, ...(timeout ? { timeout } : {}) });
  }

  /** Plain NATS, no acknowledgement: false when NATS is away and nothing was sent. */
  announce(subject: string, payload: string): boolean {
    if (!this.link || !this.up) return false;
    this.link.nats.publish(subject, codec.encode(payload));
    return true;
  }

  private ensureStream(): Promise<boolean> {
    if (!this.link) return Promise.resolve(false);
    return ensureEventStream(this.link.nats, this.streamReplicas).then(
      () => true,
      (error: unknown) => {
        this.logger.warn({ err: error }, 'event stream not ready; events wait in the outbox');
        return false;
      },
    );
  }

  /**
   * The stream exists (or was just created). Concurrent sends that find it not ready share one
   * check: the first to notice starts it, the others wait for that one.
   */
  private async streamExists(): Promise<boolean> {
    const known = this.streamReady;
    if (await known) return true;
    if (this.streamReady === known) this.streamReady = this.ensureStream();
    return this.streamReady;
  }
}
