import { randomBytes } from 'node:crypto';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '@masthead/service-testkit';

/** A dispute as the card provider's API shows it (the fields billing reads, and a few more). */
export interface FakeDispute {
  id: string;
  object: 'dispute';
  charge: string;
  payment_intent: string | null;
  amount: number;
  currency: string;
  status: string;
  reason: string;
  created: number;
  livemode: false;
  metadata: Record<string, string>;
}

export interface DisputingCardProvider {
  /** `http://127.0.0.1:<port>`: the CARDPROVIDER_API_BASE of the stack under test. */
  url: string;
  /**
   * Opens a dispute on a charge, or moves one (same `id`) to another status, as the provider's
   * own records would after a cardholder's bank disputes it; the dispute as served.
   */
  dispute(dispute: {
    id?: string;
    charge: string;
    paymentIntent?: string | null;
    amount: number;
    currency?: string;
    status: string;
  }): FakeDispute;
  stop(): Promise<void>;
}

const DISPUTE_PATH = /^\/v1\/disputes\/([^/?]+)(?:\?.*)?$/;

/**
 * The card provider for tests that need disputes: localstripe (docs/adr/0110), which has no
 * dispute API, answers everything else through this proxy, and `GET /v1/disputes/{id}` answers
 * the disputes a test opened, or the provider's 404 `resource_missing`, so that billing refetches
 * a dispute as it does on the real provider (docs/adr/0231).
 */
export async function startDisputingCardProvider(localStripeUrl: string): Promise<DisputingCardProvider> {
  const upstream = new URL(localStripeUrl);
  const disputes = new Map<string, FakeDispute>();

  const answer = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const proxied = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      },
    );
    proxied.on('error', (error) => answer(res, 502, { error: { message: `localstripe: ${error.message}` } }));
    req.pipe(proxied);
  };

  const server = createServer((req, res) => {
    const match = req.method === 'GET' ? DISPUTE_PATH.exec(req.url ?? '') : null;
    if (!match) return forward(req, res);
    const found = disputes.get(decodeURIComponent(match[1]!));
    if (found) return answer(res, 200, found);
    answer(res, 404, {
      error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such dispute: '${match[1]!}'`, param: 'id' },
    });
  });
  const listener = await listenOnLoopback(server);
  return {
    url: listener.url,
    dispute({ id, charge, paymentIntent = null, amount, currency = 'usd', status }) {
      const key = id ?? `dp_${randomBytes(12).toString('hex')}`;
      const dispute: FakeDispute = {
        id: key,
        object: 'dispute',
        charge,
        payment_intent: paymentIntent,
        amount,
        currency,
        status,
        reason: 'fraudulent',
        created: disputes.get(key)?.created ?? Math.floor(Date.now() / 1000),
        livemode: false,
        metadata: {},
      };
      disputes.set(key, dispute);
      return dispute;
    },
    stop: listener.close,
  };
}
