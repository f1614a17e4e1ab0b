import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, StringCodec } from 'nats';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startMailSink, type MailSink } from '../src/mail-sink.js';

describe('development mail sink', () => {
  let dir: string;
  let sink: MailSink;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mail-sink-'));
    sink = await startMailSink(inject('natsUrl'), dir, () => undefined);
  });
  afterAll(async () => {
    await sink?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes each mail event to a file a developer can read, named by time, event and address', async () => {
    const email = `sink-${randomBytes(4).toString('hex')}@example.test`;
    const event = {
      id: 'e1',
      name: 'password_reset_requested',
      source: 'identity',
      occurred_at: '2026-11-21T22:00:00.000Z',
      resource_id: 1,
      payload: { user_id: 1, email, code: 'c'.repeat(48), expires_at: '2026-11-21T23:00:00.000Z' },
    };
    const nats = await connect({ servers: inject('natsUrl') });
    nats.publish('masthead.events.password_reset_requested', StringCodec().encode(JSON.stringify(event)));
    await nats.flush();
    await nats.close();
    const deadline = Date.now() + 5000;
    let files: string[] = [];
    while (files.length === 0 && Date.now() < deadline) {
      files = (await readdir(dir)).filter((file) => file.includes(email));
      if (files.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(files).toEqual([`2026-11-21T22_00_00.000Z-password_reset_requested-${email}.json`]);
    expect(JSON.parse(await readFile(join(dir, files[0]!), 'utf8'))).toEqual(event);
  });
});
