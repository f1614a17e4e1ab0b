/**
 * identity's defaults (services/identity/src/config.ts: ARGON2_MEMORY_KIB, ARGON2_ITERATIONS,
 * ARGON2_PARALLELISM, HASH_CONCURRENCY); the bench runs identity with its defaults, so the
 * baseline hashes exactly as a sign-in verifies.
 */
export const HASH_PARAMETERS = { memoryKib: 19_456, iterations: 2, parallelism: 1, concurrency: 4 } as const;

/** `env` without overrides of identity's hashing settings, so that the stack uses the defaults above. */
export function withDefaultHashing(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  for (const name of [
    'ARGON2_MEMORY_KIB',
    'ARGON2_ITERATIONS',
    'ARGON2_PARALLELISM',
    'HASH_CONCURRENCY',
    'HASH_QUEUE_LIMIT',
    'UV_THREADPOOL_SIZE',
  ]) {
    delete copy[name];
  }
  return copy;
}
