import { connect, Events, type NatsConnection } from 'nats';

// Between attempts to reach a NATS that went away, plus up to the jitter: nats.js waits 2 s by
// default, a fifth of the time in which an outbox must drain once NATS is back (issue 15). An
// attempt on a server that is down is a refused loopback or cluster connection: cheap.
const NATS_RECONNECT_WAIT_MS = 250;
const NATS_RECONNECT_JITTER_MS = 250;

/**
 * A connection to NATS as every process of ours makes it (services and gateway): it waits for a
 * server that is down at first and keeps reconnecting for ever. No async traces: nats.js would
 * otherwise capture two stack traces (Error objects) per request and JetStream publish, a sixth
 * of a POST /user/event's CPU, only to decorate a timeout's stack (ADR 0196).
 */
export const connectNats = (servers: string, name: string): Promise<NatsConnection> =>
  connect({
    servers,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: NATS_RECONNECT_WAIT_MS,
    reconnectJitter: NATS_RECONNECT_JITTER_MS,
    waitOnFirstConnect: true,
    noAsyncTraces: true,
  });

/** What a follower of one connection is told (`followConnection`). */
export interface ConnectionFollower {
  /** Once, when the connection exists (it may still be down). */
  opened?: (connection: NatsConnection) => void;
  /** At once with the state it opened in, then at every disconnect and reconnect. */
  changed: (connected: boolean) => void;
}

/**
 * Follows whether a connection (or the promise of one) is up, for the senders that must not wait
 * for an acknowledgement that cannot come. A connection that never opens counts as down.
 */
export function followConnection(nats: NatsConnection | Promise<NatsConnection>, follower: ConnectionFollower): void {
  void Promise.resolve(nats)
    .then(async (connection) => {
      follower.opened?.(connection);
      follower.changed(!connection.isClosed());
      for await (const status of connection.status()) {
        if (status.type === Events.Disconnect) follower.changed(false);
        if (status.type === Events.Reconnect) follower.changed(true);
      }
    })
    .catch(() => follower.changed(false));
}
