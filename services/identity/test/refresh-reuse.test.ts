import { connectMongo } from '@masthead/core/mongo';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openRotation, sealRotation, type Rotation } from '../src/sessions/rotation-seal.js';
import { SessionRepository } from '../src/sessions/session.repository.js';
import { newToken } from '../src/sessions/tokens.js';

const rotation = (): Rotation => ({
  token: newToken(),
  refreshToken: newToken(),
  expiresAt: new Date(Date.now() + 86_400_000),
  refreshExpiresAt: new Date(Date.now() + 30 * 86_400_000),
});

/** The sealed answer of a refresh claim (docs/adr/0086). */
describe('rotation seal', () => {
  it('opens only with the refresh token it was sealed with, and holds no token in the clear', () => {
    const presented = newToken();
    const answer = rotation();
    const sealed = sealRotation(presented, answer);
    expect(openRotation(presented, sealed)).toEqual(answer);
    expect(openRotation(newToken(), sealed)).toBeNull();
    expect(sealed).not.toContain(answer.token);
    expect(Buffer.from(sealed, 'base64url').toString('latin1')).not.toContain(answer.token);
    // Two seals of one answer differ (a fresh IV each time).
    expect(sealRotation(presented, answer)).not.toBe(sealed);
  });

  it('refuses altered or truncated bytes instead of throwing', () => {
    const presented = newToken();
    const raw = Buffer.from(sealRotation(presented, rotation()), 'base64url');
    raw.writeUInt8(raw.readUInt8(raw.length - 1) ^ 1, raw.length - 1);
    expect(openRotation(presented, raw.toString('base64url'))).toBeNull();
    expect(openRotation(presented, raw.subarray(0, 20).toString('base64url'))).toBeNull();
    expect(openRotation(presented, '')).toBeNull();
  });
});

describe('reuse sweep', () => {
  let db: Connection;
  let repository: SessionRepository;
  beforeAll(async () => {
    db = await connectMongo({ url: inject('mongoUrl'), dbName: `refresh_reuse_${Date.now()}` });
    repository = new SessionRepository(db);
    await repository.ready();
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  it('erases sealed answers past their window and keeps the claims', async () => {
    const now = Date.now();
    expect(await repository.claimUse('refresh:past', { sealed: 'sealed-past', until: new Date(now - 1000) })).toBe(true);
    expect(await repository.claimUse('refresh:open', { sealed: 'sealed-open', until: new Date(now + 60_000) })).toBe(true);
    expect(await repository.claimUse('refresh:past', { sealed: 'again', until: new Date(now + 60_000) })).toBe(false);
    await repository.eraseExpiredReuse(new Date(now));
    expect(await repository.findUse('refresh:past')).toEqual({ _id: 'refresh:past', used_at: expect.any(Date) });
    expect(await repository.findUse('refresh:open')).toMatchObject({ reuse: 'sealed-open' });
  });
});
