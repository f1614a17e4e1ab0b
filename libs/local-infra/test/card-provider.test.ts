import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FAKE_PROVIDER_KEY, isAlive, startLocalStripe, startStripeMock, type StartedServer } from '../src/index.js';

const createCustomer = (server: StartedServer, email: string) =>
  fetch(`${server.url}/v1/customers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${FAKE_PROVIDER_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email }),
  });

const countCustomers = async (server: StartedServer, email: string): Promise<number> => {
  const response = await fetch(`${server.url}/v1/customers?email=${encodeURIComponent(email)}&limit=100`, {
    headers: { authorization: `Bearer ${FAKE_PROVIDER_KEY}` },
  });
  return ((await response.json()) as { data: unknown[] }).data.length;
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'card-provider-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('startLocalStripe', () => {
  it('serves a stateful provider API on loopback only, and stops by PID', async () => {
    const server = await startLocalStripe({ dataDir: join(dir, 'ls'), logFile: join(dir, 'localstripe.log') });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      expect((await createCustomer(server, 'launcher@example.test')).status).toBe(200);
      expect(await countCustomers(server, 'launcher@example.test')).toBe(1);
      // Not the wildcard address localstripe's own entry point binds.
      await expect(fetch(`http://[::1]:${server.port}/v1/customers`)).rejects.toThrow();
    } finally {
      await server.process.stop();
    }
    expect(isAlive(server.process.pid)).toBe(false);
  });

  it('starts empty unless asked to persist, and then keeps objects across a restart', async () => {
    const dataDir = join(dir, 'persisted');
    const first = await startLocalStripe({ dataDir, persist: true });
    await createCustomer(first, 'kept@example.test');
    await first.process.stop();

    const [again, fresh] = await Promise.all([startLocalStripe({ dataDir, persist: true }), startLocalStripe({ dataDir })]);
    try {
      expect(await countCustomers(again, 'kept@example.test')).toBe(1);
      expect(await countCustomers(fresh, 'kept@example.test')).toBe(0);
    } finally {
      await Promise.all([again.process.stop(), fresh.process.stop()]);
    }
  });
});

describe('startStripeMock', () => {
  it('validates requests against the OpenAPI document on loopback, and stops by PID', async () => {
    const server = await startStripeMock({ dataDir: join(dir, 'sm'), logFile: join(dir, 'stripe-mock.log') });
    try {
      expect((await createCustomer(server, 'mock@example.test')).status).toBe(200);
      const response = await fetch(`${server.url}/v1/payment_intents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${FAKE_PROVIDER_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ amount: 'twelve', currency: 'usd' }),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: expect.objectContaining({ type: 'invalid_request_error' }) });
    } finally {
      await server.process.stop();
    }
    expect(isAlive(server.process.pid)).toBe(false);
  });
});
