// Issue 30's edge check, in one process on the bench's cores: @masthead/entitlements verifying a
// member's entitlement token against the stack's published key set, held warm (fetched once).
// GET /run?ms=N verifies in CONCURRENCY closed loops for N ms and answers {verified, ms}; the
// token is asked afresh (POST /user/entitlement-token) whenever the one held nears its expiry.
// Usage: node verify-server.js <port> <api base> <resource key> <session token>
import { createServer } from 'node:http';

import { createVerifier } from '@masthead/entitlements';

const [portText, apiBase, resource, sessionToken] = process.argv.slice(2);
const port = Number(portText);
if (!Number.isInteger(port) || !apiBase || !resource || !sessionToken)
  throw new Error('usage: verify-server <port> <api base> <resource> <session token>');

/**
 * Verifications in flight at once: WebCrypto's verify runs on libuv's thread pool (4 threads), so
 * a few loops keep both cores busy, as concurrent page views keep an edge's isolate.
 */
const CONCURRENCY = 8;
/** A token is renewed this long before its `exp`. */
const RENEW_BEFORE_MS = 60_000;

const verifier = createVerifier({ resource, jwksUrl: new URL('/.well-known/jwks.json', apiBase) });
let held: { token: string; expiresAt: number } | undefined;

async function token(): Promise<string> {
  if (held && held.expiresAt - Date.now() > RENEW_BEFORE_MS) return held.token;
  const response = await fetch(`${apiBase}/user/entitlement-token`, { method: 'POST', headers: { resource, token: sessionToken } });
  const body = (await response.json()) as { entitlement_token?: string; expires?: number };
  if (response.status !== 200 || !body.entitlement_token || !body.expires)
    throw new Error(`POST /user/entitlement-token answered ${response.status}`);
  held = { token: body.entitlement_token, expiresAt: body.expires * 1000 };
  return held.token;
}

async function run(ms: number): Promise<{ verified: number; ms: number }> {
  const current = await token();
  const started = performance.now();
  const deadline = started + ms;
  let verified = 0;
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      await verifier.verify(current);
      verified++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  return { verified, ms: performance.now() - started };
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const answer = (status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  // Ready once a token verifies: the key set is held from then on.
  if (url.pathname === '/ready') {
    return void token()
      .then((current) => verifier.verify(current))
      .then(
        () => answer(200, { status: 'ready' }),
        (error: unknown) => answer(503, { error: String(error) }),
      );
  }
  const ms = Number(url.searchParams.get('ms'));
  if (url.pathname !== '/run' || !Number.isInteger(ms) || ms <= 0) return answer(404, { error: 'GET /run?ms=N' });
  run(ms).then(
    (result) => answer(200, result),
    (error: unknown) => answer(500, { error: String(error) }),
  );
});
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
