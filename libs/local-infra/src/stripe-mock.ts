import { resolveStripeMock, startFakeProvider } from './card-provider.js';
import { LOOPBACK, type StartedServer, type StartServerOptions } from './server.js';

// It loads and indexes the provider's OpenAPI document (~600 validators) before it listens.
const READY_TIMEOUT_MS = 30_000;

/**
 * Starts stripe-mock (Go, pinned by scripts/bootstrap.mjs): stateless, it validates each request
 * against the provider's OpenAPI document and answers fixtures; on a free loopback port, resolved
 * once it answers. Stop it by `process.stop()`.
 */
export async function startStripeMock(options: StartServerOptions): Promise<StartedServer> {
  const binary = options.binary ?? (await resolveStripeMock());
  return startFakeProvider(
    {
      name: 'stripe-mock',
      binary,
      // -http-addr alone still opens HTTPS on the fixed port 12112 of every address (it checks
      // only -http/-http-port/-port for that); give HTTPS a system-chosen loopback port instead.
      args: (port) => ['-http-addr', `${LOOPBACK}:${port}`, '-https-addr', `${LOOPBACK}:0`],
      readyTimeoutMs: READY_TIMEOUT_MS,
    },
    options,
  );
}
