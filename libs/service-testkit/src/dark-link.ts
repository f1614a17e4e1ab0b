import { createConnection, createServer, type Socket } from 'node:net';

/** The 24 bytes an HTTP/2 client sends before its first frame (RFC 9113 §3.4). */
const CLIENT_PREFACE = 24;
const FRAME_HEADER = 9;
const HEADERS_FRAME = 0x1;

/** Which way a link goes dark: the call never reaches the server, or its answer never comes back. */
export type DarkSide = 'requests' | 'replies';

export interface DarkLink {
  /** Where the client connects instead of the target. */
  address: string;
  /**
   * From the `nth` call that starts after this (1 = the next one), the link goes dark: with
   * `replies` the server gets that call and answers it, but neither that answer nor anything
   * after it reaches the client; with `requests` that call and everything after it never reach
   * the server. Callers then run into their deadlines, as over a network that failed mid-call.
   */
  darkenAt(nth: number, side: DarkSide): void;
  /** Light again: every connection (unusable once dark) is closed, so that clients open new ones. */
  restore(): void;
  /** Calls seen since the link started. */
  readonly calls: number;
  stop(): Promise<void>;
}

/**
 * A TCP relay in front of a gRPC server that fails on command at one chosen call (a fault
 * injection for tests of what a caller does when a call's outcome is unknown). It reads HTTP/2
 * only as far as frame boundaries: a HEADERS frame on a stream the client has not used yet is a
 * new call. Once dark, a whole direction stays dark, so the header compression of the two sides
 * never disagrees about frames one of them did not see.
 */
export async function startDarkLink(target: string): Promise<DarkLink> {
  const [host, port] = splitAddress(target);
  const sockets = new Set<Socket>();
  let calls = 0;
  let plan: { call: number; side: DarkSide } | null = null;
  let dark: DarkSide | null = null;
  const darkStreams = new Set<string>();

  const server = createServer((client) => {
    const upstream = createConnection({ host, port });
    const id = `${client.remotePort}`;
    const seen = new Set<number>();
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());

    relayFrames(client, CLIENT_PREFACE, (frame, type, stream) => {
      if (type === HEADERS_FRAME && stream % 2 === 1 && !seen.has(stream)) {
        seen.add(stream);
        calls++;
        if (plan && calls === plan.call) {
          if (plan.side === 'requests') dark = 'requests';
          else darkStreams.add(`${id}:${stream}`);
          plan = null;
        }
      }
      if (dark !== 'requests') upstream.write(frame);
    });
    relayFrames(upstream, 0, (frame, _type, stream) => {
      if (darkStreams.has(`${id}:${stream}`)) dark = 'replies';
      if (dark !== 'replies') client.write(frame);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: listening } = server.address() as { port: number };

  return {
    address: `127.0.0.1:${listening}`,
    get calls() {
      return calls;
    },
    darkenAt(nth, side) {
      plan = { call: calls + nth, side };
    },
    restore() {
      plan = null;
      dark = null;
      darkStreams.clear();
      for (const socket of sockets) socket.destroy();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Calls `onFrame` with each whole HTTP/2 frame read from `socket`, after `skip` leading bytes passed on as one chunk. */
function relayFrames(socket: Socket, skip: number, onFrame: (frame: Buffer, type: number, stream: number) => void): void {
  let pending = Buffer.alloc(0);
  let toSkip = skip;
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    if (toSkip > 0) {
      if (pending.length < toSkip) return;
      onFrame(pending.subarray(0, toSkip), -1, 0);
      pending = pending.subarray(toSkip);
      toSkip = 0;
    }
    while (pending.length >= FRAME_HEADER) {
      const length = pending.readUIntBE(0, 3);
      if (pending.length < FRAME_HEADER + length) return;
      const frame = pending.subarray(0, FRAME_HEADER + length);
      onFrame(frame, pending[3]!, pending.readUInt32BE(5) & 0x7fffffff);
      pending = pending.subarray(FRAME_HEADER + length);
    }
  });
}

function splitAddress(address: string): [string, number] {
  const at = address.lastIndexOf(':');
  return [address.slice(0, at), Number(address.slice(at + 1))];
}
