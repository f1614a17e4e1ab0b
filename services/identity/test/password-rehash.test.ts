import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RelationshipRepository } from '../src/relationships/relationship.repository.js';
import { EMPTY_PROFILE, type UserRepository } from '../src/users/user.repository.js';
import { openMemberRepositories } from './member-repositories.js';

/**
 * A sign-in's rehash replaces only the hash it verified: a password changed meanwhile (a reset)
 * is never replaced by a hash of the old one (ADR 0204).
 */
describe('password rehash', () => {
  let db: Connection;
  let users: UserRepository;
  let relationships: RelationshipRepository;

  beforeAll(async () => {
    ({ db, users, relationships } = await openMemberRepositories('password_rehash'));
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  const storedHash = async (email: string) => (await users.findCredentialsByEmail(email))?.password_hash;

  it('replaces the global hash only while it is the one verified', async () => {
    const email = 'rehash@example.test';
    const user = await users.create({
      ...EMPTY_PROFILE,
      email,
      password_hash: 'verified',
      active: true,
      email_confirmed: true,
      role: 'user',
    });
    await users.setPasswordHash(user._id, 'reset');
    await users.replacePasswordHash(user._id, 'verified', 'rehashed-old');
    expect(await storedHash(email)).toBe('reset');
    await users.replacePasswordHash(user._id, 'reset', 'rehashed');
    expect(await storedHash(email)).toBe('rehashed');
  });

  it('replaces the resource hash only while it is the one verified; null stands for none set', async () => {
    await relationships.attach(5, 41);
    expect(await relationships.setInitialPasswordHash(5, 41, 'verified')).toBe(true);
    expect(await relationships.setInitialPasswordHash(5, 41, 'second')).toBe(false);
    await relationships.setPasswordHash(5, 41, 'reset');
    expect(await relationships.replacePasswordHash(5, 41, 'verified', 'rehashed-old')).toBe(false);
    expect((await relationships.find(5, 41))?.password_hash).toBe('reset');
    expect(await relationships.replacePasswordHash(5, 41, 'reset', 'rehashed')).toBe(true);
    expect((await relationships.find(5, 41))?.password_hash).toBe('rehashed');
  });
});
