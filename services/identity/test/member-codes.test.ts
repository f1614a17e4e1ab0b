import { connectMongo } from '@masthead/core/mongo';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CODE_LENGTH, newCode, parseCode, verifierMatches } from '../src/recovery/code-secret.js';
import { MemberCodeRepository } from '../src/recovery/member-code.repository.js';
import { MemberCodes } from '../src/recovery/member-codes.js';
import { SessionRepository } from '../src/sessions/session.repository.js';

describe('code secrets', () => {
  it('makes random split codes and stores only the hash of the secret part', () => {
    const first = newCode();
    const second = newCode();
    expect(first.code).toHaveLength(CODE_LENGTH);
    expect(first.code).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(first.code).not.toBe(second.code);
    const parsed = parseCode(first.code)!;
    expect(parsed.selector).toBe(first.selector);
    expect(first.code.endsWith(parsed.verifier)).toBe(true);
    expect(first.verifierHash).toMatch(/^[0-9a-f]{64}$/);
    expect(first.code).not.toContain(first.verifierHash);
  });

  it('parses only what can be a code (trimmed), never throws', () => {
    const { code } = newCode();
    expect(parseCode(` ${code}\n`)).not.toBeNull();
    for (const bad of ['', 'short', `${code}x`, code.slice(1), `${code.slice(0, -1)}=`, `${code.slice(0, -1)}é`]) {
      expect(parseCode(bad)).toBeNull();
    }
  });

  it('matches the right verifier and refuses any other, including a corrupt stored hash', () => {
    const { code, verifierHash } = newCode();
    const { verifier } = parseCode(code)!;
    expect(verifierMatches(verifier, verifierHash)).toBe(true);
    expect(verifierMatches(`${verifier.slice(0, -1)}${verifier.endsWith('A') ? 'B' : 'A'}`, verifierHash)).toBe(false);
    expect(verifierMatches(verifier, verifierHash.slice(2))).toBe(false);
    expect(verifierMatches(verifier, '')).toBe(false);
  });

  it('compares in constant time: a near miss costs what a far miss costs', () => {
    // Both sides are 32-byte digests compared with timingSafeEqual, so the time cannot depend on
    // how many leading bytes match. Measured loosely (shared machine): the median ratio of paired
    // blocks within a factor of 2.
    const { code, verifierHash } = newCode();
    const { verifier } = parseCode(code)!;
    const nearMiss = `${verifierHash.slice(0, 62)}${verifierHash.endsWith('0') ? '1' : '0'}`;
    const farMiss = `${verifierHash.startsWith('0') ? '1' : '0'}${verifierHash.slice(1)}`;
    const time = (stored: string) => {
      const started = process.hrtime.bigint();
      for (let i = 0; i < 2000; i++) verifierMatches(verifier, stored);
      return Number(process.hrtime.bigint() - started);
    };
    time(nearMiss); // warm-up
    // Near and far blocks alternate, so a change in the machine's load hits both sides of a pair
    // alike and cancels in its ratio.
    const ratios: number[] = [];
    for (let round = 0; round < 31; round++) ratios.push(time(nearMiss) / time(farMiss));
    const median = ratios.sort((a, b) => a - b)[15]!;
    expect(median).toBeGreaterThan(0.5);
    expect(median).toBeLessThan(2);
  });
});

describe('member codes on FerretDB', () => {
  let db: Connection;
  let codes: MemberCodes;
  const target = { userId: 7, resourceId: 3, email: 'reader@example.test' };

  beforeAll(async () => {
    db = await connectMongo({ url: inject('mongoUrl'), dbName: `member_codes_${Date.now()}` });
    const repository = new MemberCodeRepository(db);
    const claims = new SessionRepository(db);
    await Promise.all([repository.ready(), claims.ready()]);
    codes = new MemberCodes({ repository, claims });
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  it('redeems a code once, for its purpose and resource only', async () => {
    const { code } = await codes.issue('password_reset', target, 60);
    expect(await codes.redeem(code, 4, ['password_reset'])).toBeNull();
    expect(await codes.redeem(code, 3, ['email_confirmation'])).toBeNull();
    expect(await codes.redeem(code, 3, ['password_reset'])).toMatchObject({ user_id: 7, email: target.email, purpose: 'password_reset' });
    expect(await codes.redeem(code, 3, ['password_reset'])).toBeNull();
  });

  it('refuses an expired code and a tampered one', async () => {
    const expiring = await codes.issue('email_change', { ...target, userId: 8 }, 60);
    await db
      .collection('member_codes')
      .updateOne({ _id: parseCode(expiring.code)!.selector as never }, { $set: { expires_at: new Date(0) } });
    expect(await codes.redeem(expiring.code, 3, ['email_change'])).toBeNull();
    const { code } = await codes.issue('email_change', { ...target, userId: 9 }, 60);
    const tampered = `${code.slice(0, -1)}${code.endsWith('A') ? 'B' : 'A'}`;
    expect(await codes.redeem(tampered, 3, ['email_change'])).toBeNull();
    expect(await codes.redeem(code, 3, ['email_change'])).not.toBeNull();
  });

  it('keeps one live code per member and purpose: a new one replaces the earlier', async () => {
    const earlier = await codes.issue('email_confirmation', { ...target, userId: 10 }, 60);
    const later = await codes.issue('email_confirmation', { ...target, userId: 10 }, 60);
    expect(await codes.redeem(earlier.code, 3, ['email_confirmation'])).toBeNull();
    expect(await codes.redeem(later.code, 3, ['email_confirmation'])).not.toBeNull();
  });

  it('lets exactly one of parallel uses win (the claim is an insert into secret_uses)', async () => {
    const { code } = await codes.issue('external_login', { ...target, userId: 11 }, 60);
    const results = await Promise.all(Array.from({ length: 8 }, () => codes.redeem(code, 3, ['external_login'])));
    expect(results.filter((result) => result !== null)).toHaveLength(1);
  });
});
