import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import { pinnedLookup, requestRefused, type DestinationPolicy, type Resolver } from './destination.js';

/** What one request to an endpoint came to. */
export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  /**
   * Why it failed, in the delivery log's words only: `HTTP <status>`, `timeout` or `refused`
   * (a refused destination and every connection failure alike, so that the log tells nothing of
   * which addresses and ports answer: docs/adr/0240).
   */
  error: string | null;
}

export interface SignedRequest {
  url: string;
  /** The endpoint's `whsec_…` secret, opened only for this request. */
  secret: string;
  webhookId: string;
  timestamp: Date;
  payload: string;
}

export type WebhookSender = (request: SignedRequest) => Promise<SendResult>;

export interface SenderOptions {
  timeoutMs: number;
  policy: DestinationPolicy;
  /** DNS by default; tests play a resolver that changes its answers. */
  resolve?: Resolver;
}

const USER_AGENT = 'Masthead-Webhooks/1';
const REFUSED: SendResult = { ok: false, statusCode: null, error: 'refused' };
const TIMEOUT: SendResult = { ok: false, statusCode: null, error: 'timeout' };

/**
 * POSTs a Standard Webhooks request (`webhook-id`, `webhook-timestamp` in Unix seconds,
 * `webhook-signature` `v1,<base64 HMAC-SHA256>`). A 2xx answer is success; redirects are not
 * followed (a moved endpoint must be updated by its operator, not guessed at). The destination is
 * judged again at each request: the URL's scheme and literal host first, then every address its
 * name resolves to, in the connection's own lookup, so the request goes to an address that
 * was checked (docs/adr/0240).
 */
export function httpWebhookSender({ timeoutMs, policy, resolve }: SenderOptions): WebhookSender {
  const lookup = pinnedLookup(policy, resolve);
  const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
  return ({ url, secret, webhookId, timestamp, payload }) => {
    const target = new URL(url);
    if (requestRefused(target, policy)) return Promise.resolve(REFUSED);
    const signature = new Webhook(secret).sign(webhookId, timestamp, payload);
    const client = target.protocol === 'https:' ? https : http;
    return new Promise<SendResult>((settle) => {
      const request = client.request(
        target,
        {
          method: 'POST',
          agent: agents[target.protocol as keyof typeof agents],
          lookup,
          signal: AbortSignal.timeout(timeoutMs),
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
            'user-agent': USER_AGENT,
            'webhook-id': webhookId,
            'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
            'webhook-signature': signature,
          },
        },
        (response) => {
          // The answer's body is not ours to keep; drain it so the connection is reused.
          response.resume();
          response.on('error', () => undefined);
          const status = response.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          settle({ ok, statusCode: status, error: ok ? null : `HTTP ${status}` });
        },
      );
      // The only signal is the deadline: an abort is a timeout, any other failure is refused.
      request.on('error', (error) => settle(error.name === 'AbortError' ? TIMEOUT : REFUSED));
      request.end(payload);
    });
  };
}
