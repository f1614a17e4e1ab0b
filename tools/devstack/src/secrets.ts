import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';

const KEY_BYTES = 32;

/**
 * Returns the base64 SECRETS_KEY kept in `file`, creating it (mode 0600) on first run. The key
 * encrypts provider secrets at rest, so it is never regenerated: a malformed file is an error.
 */
export async function ensureSecretsKey(file: string): Promise<string> {
  try {
    await writeFile(file, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
  }
  const key = (await readFile(file, 'utf8')).trim();
  if (Buffer.from(key, 'base64').length !== KEY_BYTES) {
    throw new Error(`${file} does not hold a base64 ${KEY_BYTES}-byte key; data encrypted with it cannot be read without it`);
  }
  return key;
}
