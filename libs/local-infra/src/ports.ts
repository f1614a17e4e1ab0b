import { createServer } from 'node:net';

/** Ports this process has handed out: the kernel may offer a port again once it is closed. */
const handedOut = new Set<number>();
const MAX_ATTEMPTS = 20;

/**
 * Asks the kernel for a free TCP port on `host` by binding port 0 and closing again; never the
 * same port twice in one process, so a stack whose ports are reserved one by one gets distinct
 * ones. Another process can still take the port before the caller binds it; callers that spawn
 * a server on it retry with a new port when the server exits early.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await askKernel(host);
    if (!handedOut.has(port) || attempt >= MAX_ATTEMPTS) {
      handedOut.add(port);
      return port;
    }
  }
}

function askKernel(host: string): Promise<number> {
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
