import { createEventPublisher, type EventPublisher } from '@masthead/core/events';
import { createLogger } from '@masthead/core/logging';
import { connectMongo } from '@masthead/core/mongo';
import type { Connection } from 'mongoose';
import { inject } from 'vitest';
import { AccessAnnouncer } from '../src/sessions/access-announcer.js';
import { CredentialExchange } from '../src/sessions/credential-exchange.service.js';
import { SessionRepository } from '../src/sessions/session.repository.js';
import { SessionService } from '../src/sessions/session.service.js';

export const RESOURCE = 7;
export const noContext = { sourceType: null, guestSession: null, ip: null, userAgent: null };

export interface SessionFixture {
  db: Connection;
  repository: SessionRepository;
  sessions: SessionService;
  exchange: CredentialExchange;
  /** The commands `work` sends, as `commandName collection`. */
  commandsDuring(work: () => Promise<unknown>): Promise<string[]>;
  close(): Promise<void>;
}

/** Identity's session area on a database of its own, with a reuse window of 10 s. */
export async function openSessionFixture(name: string): Promise<SessionFixture> {
  const db = await connectMongo({ url: inject('mongoUrl'), dbName: `${name}_${Date.now()}`, monitorCommands: true });
  const repository = new SessionRepository(db);
  await repository.ready();
  // NATS never comes: the announcements of endings are notifications and are dropped.
  const publisher: EventPublisher = await createEventPublisher({
    source: 'test',
    connection: db,
    nats: new Promise(() => undefined),
    logger: createLogger({ name, level: 'silent' }),
    retryIntervalMs: 600_000,
  });
  const sessions = new SessionService({
    repository,
    policy: { sessionTtlSeconds: 3600, refreshTtlSeconds: 86_400, authCodeTtlSeconds: 120 },
    access: new AccessAnnouncer(publisher),
  });
  const exchange = new CredentialExchange({ repository, sessions, reuse: { reuseIntervalSeconds: 10 } });
  return {
    db,
    repository,
    sessions,
    exchange,
    async commandsDuring(work) {
      const commands: string[] = [];
      const listen = (event: { commandName: string; command: Record<string, unknown> }) => {
        commands.push(`${event.commandName} ${String(event.command[event.commandName])}`);
      };
      db.getClient().on('commandStarted', listen);
      try {
        await work();
      } finally {
        db.getClient().off('commandStarted', listen);
      }
      return commands;
    },
    async close() {
      await publisher.stop();
      await db.dropDatabase();
      await db.close();
    },
  };
}
