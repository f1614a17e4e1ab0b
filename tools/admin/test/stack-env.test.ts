import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { runningStackEnv } from '../src/stack-env.js';

describe('addresses of the running stack', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  const stackFile = async (content: unknown): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), 'stack-file-'));
    dirs.push(dir);
    const file = join(dir, 'stack.json');
    await writeFile(file, JSON.stringify(content));
    return file;
  };

  it('reads the addresses a live stack wrote', async () => {
    const file = await stackFile({ pid: process.pid, env: { IDENTITY_ADDR: '127.0.0.1:4000', NATS_URL: 'nats://127.0.0.1:4222' } });
    expect(runningStackEnv({ MASTHEAD_STACK_FILE: file })).toEqual({
      env: { IDENTITY_ADDR: '127.0.0.1:4000', NATS_URL: 'nats://127.0.0.1:4222' },
      file,
    });
  });

  it('ignores the file of a stack that is gone, a missing file and a malformed one', async () => {
    // PID 2^22 + 1 is above Linux's largest PID, so no process has it.
    const stale = await stackFile({ pid: 4_194_305, env: { IDENTITY_ADDR: '127.0.0.1:4000' } });
    const malformed = await stackFile('not an object');
    for (const file of [stale, malformed, join(tmpdir(), 'no-such-stack.json')]) {
      expect(runningStackEnv({ MASTHEAD_STACK_FILE: file })).toEqual({ env: {} });
    }
  });
});
