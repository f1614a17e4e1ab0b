import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { listenOnLoopback } from './recording-server.js';

/** One request a publisher's endpoint received, as it arrived. */
export interface ReceivedWebhook {
  headers: IncomingMessage['headers'];
  body: string;
  receivedAt: number;
}

export interface ReceiverAnswer {
  status?: number;
  /** Answer this much later (a slow endpoint); the request counts as received at once. */
  delayMs?: number;
  /** Answer only once this settles (an endpoint the test holds). */
  hold?: Promise<unknown>;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hooks` */
  url: string;
  received: ReceivedWebhook[];
  close(): Promise<void>;
}

/**
 * A publisher's webhook endpoint on a free loopback port: records every request with its raw
 * body (the signature covers the exact bytes) and answers as `answer` says (200 by default).
 */
export async function startWebhookReceiver(
  answer: (received: ReceivedWebhook, index: number) => ReceiverAnswer = () => ({}),
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedWebhook = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
      received.push(request);
      const reply = answer(request, received.length - 1);
      const send = () => {
        if (!res.destroyed) res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain' }).end('ok');
      };
      if (reply.hold) void reply.hold.finally(send);
      else if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  const listener = await listenOnLoopback(server);
  return { url: `${listener.url}/hooks`, received, close: listener.close };
}

/**
 * Verifies a received request with the endpoint's `whsec_…` secret as a receiver would
 * (standardwebhooks: signature over id, timestamp and body; timestamp within five minutes of
 * now) and answers its parsed body; throws when it does not verify.
 */
export function verifyWebhook(
  secret: string,
  request: ReceivedWebhook,
): { type: string; timestamp: string; data: Record<string, unknown> } {
  const headers = {
    'webhook-id': String(request.headers['webhook-id'] ?? ''),
    'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
    'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
  };
  return new Webhook(secret).verify(request.body, headers) as { type: string; timestamp: string; data: Record<string, unknown> };
}
