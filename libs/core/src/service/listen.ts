import type { Server } from 'node:net';

/**
 * Resolves once `server` listens on `port` and rejects with the bind error (EADDRINUSE: another
 * process holds the port), so a start fails instead of running a server that serves nothing.
 * Not express's `app.listen`: express 5 hands a bind error to its listen callback, which reads as
 * success. The error listener goes once listening, leaving later errors to the server's owner.
 */
export function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
