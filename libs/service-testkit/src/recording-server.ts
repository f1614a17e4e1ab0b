import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
}

export interface ProviderAnswer {
  status?: number;
  /** Sent as JSON unless it is a string. */
  body?: unknown;
  /** Wait this long before answering (timeouts). */
  delayMs?: number;
  /** Extra response headers (Retry-After on a 429). */
  headers?: Record<string, string>;
}

export interface RecordingServer {
  /** Base URL, `http://127.0.0.1:<port>`. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A local HTTP server that records every request and answers like an external provider
 * (DESIGN.md: providers without an official emulator are tested against one). Listens on a
 * free loopback port; `close` drops open connections.
 */
export async function startRecordingServer(answer: (request: RecordedRequest) => ProviderAnswer): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers };
    requests.push(recorded);
    const reply = answer(recorded);
    const send = () => {
      if (res.destroyed) return;
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers }).end(text);
    };
    if (reply.delayMs) setTimeout(send, reply.delayMs);
    else send();
  });
  return { ...(await listenOnLoopback(server)), requests };
}

export interface LoopbackListener {
  /** Base URL, `http://127.0.0.1:<port>`. */
  url: string;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** Starts `server` on a free loopback port: how every local provider server in tests listens. */
export async function listenOnLoopback(server: Server): Promise<LoopbackListener> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
