import { createServer } from 'node:http';
import { loadGatewayConfig, startGateway } from '@masthead/gateway';
import { createLogger } from '@masthead/core/logging';
import { freePort } from '@masthead/local-infra';
import { describe, expect, it } from 'vitest';
import { useStack } from './support.js';

describe('health and readiness', () => {
  const s = useStack();

  it('reports alive and ready when every service serves', async () => {
    const alive = await fetch(`${s.stack.gatewayUrl}/healthz`);
    expect(alive.status).toBe(200);
    expect(await alive.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${s.stack.gatewayUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ready',
      services: {
        accounts: 'serving',
        identity: 'serving',
        catalog: 'serving',
        billing: 'serving',
        community: 'serving',
        integrations: 'serving',
      },
    });
  });

  it('is not ready while a service does not answer', async () => {
    const deadPort = await freePort();
    const env = { ...s.stack.env, CATALOG_ADDR: `127.0.0.1:${deadPort}`, HOST: '127.0.0.1', PORT: '0' };
    const gateway = await startGateway(loadGatewayConfig(env), createLogger({ name: 'gateway', level: 'silent' }));
    try {
      const response = await fetch(`http://127.0.0.1:${gateway.port}/readyz`);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ error: 'not_ready', services: { catalog: 'unavailable', accounts: 'serving' } });
      const alive = await fetch(`http://127.0.0.1:${gateway.port}/healthz`);
      expect(alive.status).toBe(200);
    } finally {
      await gateway.stop();
    }
  });

  it('refuses to start on a port another server listens on (express 5 would call that a start)', async () => {
    const holder = createServer((_req, res) => res.end('holder'));
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const address = holder.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const env = { ...s.stack.env, HOST: '127.0.0.1', PORT: String(port) };
      const start = startGateway(loadGatewayConfig(env), createLogger({ name: 'gateway', level: 'silent' }));
      await expect(start).rejects.toMatchObject({ code: 'EADDRINUSE' });
      expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).text()).toBe('holder');
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });
});
