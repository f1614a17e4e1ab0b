// Baseline (c): the bare password hash, as identity runs it: @node-rs/argon2 argon2id with
// identity's default parameters (19456 KiB, t=2, p=1) and HASH_CONCURRENCY=4 hashes at once.
// GET /run?ms=N hashes in a closed loop for N ms and answers {hashes, ms}.
// Usage: node hash-server.js <port>
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

import { Algorithm, hash } from '@node-rs/argon2';

import { HASH_PARAMETERS } from './hash-parameters.js';

const port = Number(process.argv[2]);
if (!Number.isInteger(port)) throw new Error('usage: hash-server <port>');

const hashOnce = (): Promise<string> =>
  hash(randomBytes(12).toString('hex'), {
    algorithm: Algorithm.Argon2id,
    memoryCost: HASH_PARAMETERS.memoryKib,
    timeCost: HASH_PARAMETERS.iterations,
    parallelism: HASH_PARAMETERS.parallelism,
  });

/** `concurrency` loops that each start the next hash when theirs finishes, until `ms` passed. */
async function run(ms: number): Promise<{ hashes: number; ms: number }> {
  const started = performance.now();
  const deadline = started + ms;
  let hashes = 0;
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      await hashOnce();
      hashes++;
    }
  };
  await Promise.all(Array.from({ length: HASH_PARAMETERS.concurrency }, loop));
  return { hashes, ms: performance.now() - started };
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const answer = (status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  if (url.pathname === '/ready') return answer(200, { status: 'ready' });
  const ms = Number(url.searchParams.get('ms'));
  if (url.pathname !== '/run' || !Number.isInteger(ms) || ms <= 0) return answer(404, { error: 'GET /run?ms=N' });
  run(ms).then(
    (result) => answer(200, result),
    (error: unknown) => answer(500, { error: String(error) }),
  );
});
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
