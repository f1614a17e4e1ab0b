import { Webhook } from 'standardwebhooks';

/** What one request to an endpoint came to. */
export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  /** Why it failed, short and without secrets (the URL's host at most). */
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

const USER_AGENT = 'Masthead-Webhooks/1';

/**
 * POSTs a Standard Webhooks request (`webhook-id`, `webhook-timestamp` in Unix seconds,
 * `webhook-signature` `v1,<base64 HMAC-SHA256>`). A 2xx answer is success; redirects are not
 * followed (a moved endpoint must be updated by its operator, not guessed at).
 */
export function httpWebhookSender(timeoutMs: number): WebhookSender {
  return async ({ url, secret, webhookId, timestamp, payload }) => {
    const signature = new Webhook(secret).sign(webhookId, timestamp, payload);
    try {
      const response = await fetch(url, {
        method: 'POST',
        body: payload,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'webhook-id': webhookId,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
        },
      });
      // The answer's body is not ours to keep; drain it so the connection is reused.
      await response.body?.cancel().catch(() => undefined);
      const ok = response.status >= 200 && response.status < 300;
      return { ok, statusCode: response.status, error: ok ? null : `HTTP ${response.status}` };
    } catch (error) {
      return { ok: false, statusCode: null, error: describe(error, timeoutMs) };
    }
  };
}

function describe(error: unknown, timeoutMs: number): string {
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: string } })?.cause?.code;
  return cause ? `connection failed (${cause})` : 'connection failed';
}
