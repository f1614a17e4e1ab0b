import { createServer } from 'node:net';

/**
 * Asks the kernel for a free TCP port on `host` by binding port 0 and closing again.
 * Another process can take the port before the caller binds it; callers that spawn a server
 * on it retry with a new port when the server exits early.
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error(`could not read a free port on ${host}`))));
    });
  });
}
