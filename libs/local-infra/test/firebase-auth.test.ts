import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { isAlive, startFirebaseAuth, type StartedFirebaseAuth } from '../src/index.js';

describe('startFirebaseAuth', () => {
  let dir: string;
  let emulator: StartedFirebaseAuth | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firebase-auth-'));
    emulator = await startFirebaseAuth({ dataDir: join(dir, 'data'), logFile: join(dir, 'firebase.log') });
  }, 200_000);
  afterAll(async () => {
    await emulator?.process.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the Auth REST API on a free loopback port, for a demo project of its own', async () => {
    expect(emulator!.host).toBe(`127.0.0.1:${emulator!.port}`);
    expect(emulator!.projectId).toMatch(/^demo-masthead-[0-9a-f]{8}$/);
    const response = await fetch(`http://${emulator!.host}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=any`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'launcher@example.test', password: 'secret-123', returnSecureToken: true }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ email: 'launcher@example.test', idToken: expect.any(String) });
  });

  it('gives the hub and logging emulators free ports too (their defaults collide between stacks)', async () => {
    const config = JSON.parse(await readFile(join(dir, 'data', 'firebase.json'), 'utf8')) as {
      emulators: Record<string, { port?: number }>;
    };
    const ports = ['auth', 'hub', 'logging'].map((name) => config.emulators[name]?.port);
    expect(new Set(ports).size).toBe(3);
    expect(ports).not.toContain(4400);
    expect(ports).not.toContain(4500);
  });

  it('stops by PID', async () => {
    await emulator!.process.stop();
    expect(isAlive(emulator!.process.pid)).toBe(false);
  });
});
