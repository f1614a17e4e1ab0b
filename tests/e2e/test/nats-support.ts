import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNats } from '@masthead/local-infra';

export interface PrivateNats {
  url: string;
  /** Stops the server at once, keeping its data for `restart`. */
  stopNow(): Promise<void>;
  /** Starts it again on the same port and data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A nats-server of one test file's own (stopped by PID). Every stack gets one (`useStack`): stacks
 * number users, sessions and resources alike, so on one shared server each file's announcements
 * and events reached every other file's consumers and caches.
 */
export async function privateNats(): Promise<PrivateNats> {
  const dataDir = await mkdtemp(join(tmpdir(), 'masthead-nats-'));
  let server = await startNats({ dataDir });
  return {
    url: server.url,
    async stopNow() {
      await server.process.stop();
    },
    async restart() {
      server = await startNats({ dataDir, port: server.port });
    },
    async stop() {
      await server.process.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
