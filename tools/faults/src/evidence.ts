import { MongoClient, type Db } from 'mongodb';
import { connect, StringCodec, type NatsConnection } from 'nats';

const codec = StringCodec();
const STREAM = 'MASTHEAD_EVENTS';
const DATABASE_PREFIX = 'masthead_';

/** One message of the event stream. */
export interface StreamedEvent {
  id: string;
  name: string;
  /** The Nats-Msg-Id header it was published with. */
  messageId: string | undefined;
  payload: Record<string, unknown>;
}

/** Every message of `subjects` on the event stream, from its first to its last, subject by subject. */
export async function readStream(natsUrl: string, subjects: readonly string[]): Promise<StreamedEvent[]> {
  const nats = await connect({ servers: natsUrl });
  try {
    const events: StreamedEvent[] = [];
    // One subject per consumer: nats-server 2.9 (Debian's) has no multi-subject filters.
    for (const subject of subjects) events.push(...(await readSubject(nats, subject)));
    return events;
  } finally {
    await nats.close();
  }
}

async function readSubject(nats: NatsConnection, subject: string): Promise<StreamedEvent[]> {
  const events: StreamedEvent[] = [];
  const manager = await nats.jetstreamManager();
  const info = await manager.streams.info(STREAM, { subjects_filter: subject });
  if ((info.state.subjects?.[subject] ?? 0) === 0) return events;
  const consumer = await nats.jetstream().consumers.get(STREAM, { filterSubjects: subject });
  for (;;) {
    const batch = await consumer.fetch({ max_messages: 1000, expires: 2000 });
    let pending = 0;
    let received = 0;
    for await (const message of batch) {
      received++;
      pending = message.info.pending;
      const event = JSON.parse(codec.decode(message.data)) as { id: string; name: string; payload: Record<string, unknown> };
      events.push({ id: event.id, name: event.name, payload: event.payload, messageId: message.headers?.get('Nats-Msg-Id') });
    }
    if (received === 0 || pending === 0) return events;
  }
}

/** A service's own database in the drill's MongoDB-wire server. */
export async function withDatabase<T>(mongoUrl: string, work: (db: (service: string) => Db) => Promise<T>): Promise<T> {
  const client = await MongoClient.connect(mongoUrl, { serverSelectionTimeoutMS: 5_000 });
  try {
    return await work((service) => client.db(`${DATABASE_PREFIX}${service}`));
  } finally {
    await client.close();
  }
}

/** Events in the outboxes of `services`: all, and those ready to go (not prepared). */
export async function outboxBacklog(mongoUrl: string, services: readonly string[]): Promise<{ all: number; ready: number }> {
  return withDatabase(mongoUrl, async (db) => {
    let all = 0;
    let ready = 0;
    for (const service of services) {
      const outbox = db(service).collection('outbox');
      all += await outbox.countDocuments();
      ready += await outbox.countDocuments({ state: { $ne: 'prepared' } });
    }
    return { all, ready };
  });
}
