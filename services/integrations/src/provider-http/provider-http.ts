import { setTimeout as sleep } from 'node:timers/promises';
import { currentCall } from '@masthead/core/grpc';
import type { Logger } from '@masthead/core/logging';

export type ProviderMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ProviderRequest {
  method: ProviderMethod;
  url: string;
  headers: Record<string, string>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as application/x-www-form-urlencoded (OAuth token calls). */
  form?: Record<string, string>;
  /**
   * The provider documents the call as safe to repeat: it is retried after a 5xx or no answer.
   * A 429 is retried whatever the call (the provider refused it without acting on it).
   */
  idempotent: boolean;
}

export interface ProviderResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON; the text when it is not JSON; undefined when empty. */
  body: unknown;
}

/** No answer within the deadline, or no connection, after the retries the call may have. */
export class ProviderUnavailable extends Error {
  constructor(reason: string) {
    super(`provider did not answer: ${reason}`);
    this.name = 'ProviderUnavailable';
  }
}

export interface ProviderHttpOptions {
  /** For logs: `audience`, `crm`, `listmgr`. */
  provider: string;
  /** Deadline of one call, its retries included (PROVIDER_TIMEOUT_MS). */
  timeoutMs: number;
  logger: Logger;
  /** Attempts per call, the first included. */
  maxAttempts?: number;
  /** First backoff step; doubled per attempt, with full jitter. */
  baseDelayMs?: number;
  /**
   * A header a provider sends instead of Retry-After on a 429, holding the seconds until its
   * window resets (the list manager's `X-RateLimit-Reset`).
   */
  resetHeader?: string;
}

/** Time left for the service to answer its own caller after the provider call gave up. */
const ANSWER_MARGIN_MS = 150;

/** Seconds (`120`) or an HTTP date, as RFC 9110 allows for Retry-After; undefined otherwise. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * One HTTP client for the providers' APIs (docs/adr/0160): a deadline per call (the earlier of
 * PROVIDER_TIMEOUT_MS and the ambient call's deadline), retries with jittered exponential backoff
 * only where the call is idempotent, and a 429 honoured: the call waits what Retry-After asks and
 * tries again, unless that wait does not fit in its deadline; then the 429 is the answer. Logs
 * name the method and path, never the query (it can hold an email), headers or bodies.
 */
export class ProviderHttp {
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;

  constructor(private readonly options: ProviderHttpOptions) {
    this.maxAttempts = options.maxAttempts ?? 3;
    this.baseDelayMs = options.baseDelayMs ?? 100;
  }

  /** The provider's answer, whatever its status; ProviderUnavailable when none came. */
  async send(request: ProviderRequest): Promise<ProviderResponse> {
    const deadline = this.deadline();
    const path = new URL(request.url).pathname;
    for (let attempt = 1; ; attempt++) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new ProviderUnavailable('deadline passed');
      let response: ProviderResponse | undefined;
      let failure: unknown;
      try {
        response = await this.once(request, remaining);
      } catch (error) {
        failure = error;
      }
      const wait = this.retryDelay(request, response, attempt);
      if (wait === undefined || Date.now() + wait >= deadline) {
        if (response) return response;
        this.options.logger.warn({ provider: this.options.provider, method: request.method, path, attempt }, 'provider call failed');
        throw new ProviderUnavailable(failure instanceof Error ? failure.name : 'no answer');
      }
      this.options.logger.info(
        { provider: this.options.provider, method: request.method, path, status: response?.status ?? null, wait },
        'provider call retried',
      );
      await sleep(wait);
    }
  }

  private deadline(): number {
    const own = Date.now() + this.options.timeoutMs;
    const ambient = currentCall()?.deadline?.getTime();
    return ambient === undefined ? own : Math.min(own, ambient - ANSWER_MARGIN_MS);
  }

  /** How long to wait before the next attempt, or undefined when the answer stands. */
  private retryDelay(request: ProviderRequest, response: ProviderResponse | undefined, attempt: number): number | undefined {
    if (attempt >= this.maxAttempts) return undefined;
    if (response?.status === 429) {
      const header = response.headers.get('retry-after');
      const reset = this.options.resetHeader ? response.headers.get(this.options.resetHeader) : null;
      return retryAfterMs(header) ?? retryAfterMs(reset) ?? this.backoff(attempt);
    }
    const failed = response === undefined || response.status >= 500;
    return failed && request.idempotent ? this.backoff(attempt) : undefined;
  }

  private backoff(attempt: number): number {
    return Math.round(Math.random() * this.baseDelayMs * 2 ** (attempt - 1));
  }

  private async once(request: ProviderRequest, timeoutMs: number): Promise<ProviderResponse> {
    const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
    let body: string | undefined;
    if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    } else if (request.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(request.form).toString();
    }
    const response = await fetch(request.url, { method: request.method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: parseBody(text) };
  }
}

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A JSON object body as a record, else undefined (arrays, texts and empty bodies are not). */
export const objectBody = (body: unknown): Record<string, unknown> | undefined =>
  body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;

/** True for a 2xx status. */
export const isSuccess = (response: ProviderResponse): boolean => response.status >= 200 && response.status < 300;
