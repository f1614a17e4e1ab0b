import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { listenOn } from '../src/service/index.js';

const servers: Server[] = [];
const server = () => {
  const created = createServer((_req, res) => res.end('ok'));
  servers.push(created);
  return created;
};

/** The start of the gateway's and the metrics' HTTP listeners. */
describe('listenOn', () => {
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => (s.listening ? s.close(() => resolve()) : resolve()))));
  });

  it('resolves once listening and leaves later errors to the server owner', async () => {
    const first = server();
    await listenOn(first, 0, '127.0.0.1');
    expect(first.listening).toBe(true);
    expect(first.listenerCount('error')).toBe(0);
  });

  it('rejects with the bind error on a port another server holds', async () => {
    const holder = server();
    await listenOn(holder, 0, '127.0.0.1');
    const address = holder.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const second = server();
    await expect(listenOn(second, port, '127.0.0.1')).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(second.listening).toBe(false);
  });
});
