import { runInCall } from '@masthead/core/grpc';
import { createLogger } from '@masthead/core/logging';
import { startRecordingServer, type ProviderAnswer, type RecordingServer } from '@masthead/service-testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderHttp, ProviderUnavailable, retryAfterMs, type ProviderRequest } from '../src/provider-http/provider-http.js';

/**
 * The provider HTTP client (docs/adr/0160): deadlines, retries only where a call is idempotent,
 * 429 honoured, against a local recording server.
 */
describe('provider HTTP client', () => {
  let server: RecordingServer | undefined;
  afterEach(() => server?.close());

  /** A server answering each request with the next answer (the last one repeats). */
  async function answering(...answers: ProviderAnswer[]) {
    let index = 0;
    server = await startRecordingServer(() => answers[Math.min(index++, answers.length - 1)]!);
    return server;
  }
  const http = (timeoutMs = 1000, resetHeader?: string) =>
    new ProviderHttp({
      provider: 'test',
      timeoutMs,
      logger: createLogger({ name: 'test', level: 'silent' }),
      baseDelayMs: 10,
      resetHeader,
    });
  const request = (url: string, method: ProviderRequest['method'], idempotent: boolean): ProviderRequest => ({
    method,
    url: `${url}/resource`,
    headers: {},
    idempotent,
  });

  it('retries an idempotent call after a 5xx and answers the next answer', async () => {
    const fake = await answering({ status: 503, body: { message: 'busy' } }, { status: 200, body: { ok: true } });
    const response = await http().send(request(fake.url, 'GET', true));
    expect(response).toMatchObject({ status: 200, body: { ok: true } });
    expect(fake.requests).toHaveLength(2);
  });

  it('never repeats a non-idempotent call after a 5xx: the 5xx is the answer', async () => {
    const fake = await answering({ status: 502, body: { message: 'bad gateway' } }, { status: 201 });
    const response = await http().send(request(fake.url, 'POST', false));
    expect(response.status).toBe(502);
    expect(fake.requests).toHaveLength(1);
  });

  it('retries any call after a 429 as Retry-After (or the reset header) asks, up to its attempts', async () => {
    const fake = await answering({ status: 429, headers: { 'retry-after': '0' } }, { status: 201, body: 'done' });
    expect((await http().send(request(fake.url, 'POST', false))).status).toBe(201);
    expect(fake.requests).toHaveLength(2);
    await fake.close();
    const limited = await answering({ status: 429, headers: { 'x-ratelimit-reset': '0' } });
    expect((await http(1000, 'x-ratelimit-reset').send(request(limited.url, 'GET', true))).status).toBe(429);
    expect(limited.requests).toHaveLength(3);
  });

  it('answers a 429 at once when its Retry-After does not fit in the deadline', async () => {
    const fake = await answering({ status: 429, headers: { 'retry-after': '30' } }, { status: 200 });
    const started = Date.now();
    expect((await http(2000).send(request(fake.url, 'GET', true))).status).toBe(429);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(fake.requests).toHaveLength(1);
  });

  it('gives up at its deadline without an answer, and the ambient call deadline shortens it', async () => {
    const fake = await answering({ status: 200, delayMs: 1500 });
    const started = Date.now();
    await expect(http(300).send(request(fake.url, 'GET', true))).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(Date.now() - started).toBeLessThan(1200);
    const ambient = Date.now();
    await expect(
      runInCall({ requestId: 'r', deadline: new Date(Date.now() + 400) }, () => http(5000).send(request(fake.url, 'GET', true))),
    ).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(Date.now() - ambient).toBeLessThan(1200);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs('Tue, 01 Jan 2030 00:00:03 GMT', now)).toBe(3000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});
