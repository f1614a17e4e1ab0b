import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userScope, type CredentialRepository } from '../src/credentials/credential.repository.js';
import { readMember } from '../src/credentials/member-read.js';
import type { RelationshipRepository } from '../src/relationships/relationship.repository.js';
import { EMPTY_PROFILE, type UserRepository } from '../src/users/user.repository.js';
import { openMemberRepositories } from './member-repositories.js';

/**
 * Security state as insert-only credential versions (docs/adr/0210): records of the previous
 * version read as before, the first write copies what it leaves alone, no write touches the old
 * fields again, older versions are pruned, and concurrent writers are ordered by the versions.
 */
describe('credential versions', () => {
  let db: Connection;
  let users: UserRepository;
  let relationships: RelationshipRepository;
  let credentials: CredentialRepository;
  let nextId = 100;

  beforeAll(async () => {
    ({ db, credentials, users, relationships } = await openMemberRepositories('credential_versions'));
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  /** A user and its relationship with resource 7 as the previous version wrote them. */
  const legacyMember = async (relationship: Record<string, unknown> = {}) => {
    const id = nextId++;
    const now = new Date();
    const email = `legacy-${id}@example.test`;
    await db.collection('users').insertOne({
      _id: id as never,
      ...EMPTY_PROFILE,
      email,
      password_hash: 'legacy-hash',
      active: true,
      email_confirmed: true,
      role: 'admin',
      created_at: now,
      updated_at: now,
    });
    await db.collection('relationships').insertOne({
      _id: `7:${id}` as never,
      resource_id: 7,
      user_id: id,
      status: 'locked',
      role: 'partner',
      password_hash: 'legacy-resource-hash',
      extra: { kept: 1 },
      created_at: now,
      updated_at: now,
      ...relationship,
    });
    return { id, email };
  };
  const rows = async (id: number) => ({
    user: await db.collection('users').findOne({ _id: id as never }),
    relationship: await db.collection('relationships').findOne({ _id: `7:${id}` as never }),
    versions: await db.collection('credentials').find({ user_id: id }).sort({ _id: 1 }).toArray(),
  });

  it('reads records of the previous version from their own fields', async () => {
    const { id, email } = await legacyMember();
    expect(await users.findCredentialsByEmail(email)).toMatchObject({ password_hash: 'legacy-hash', active: true, role: 'admin' });
    const { user, relationship } = await readMember({ users, relationships }, id, 7);
    expect(user).toMatchObject({ _id: id, active: true, role: 'admin' });
    expect(user).not.toHaveProperty('password_hash');
    expect(relationship).toMatchObject({ status: 'locked', role: 'partner', password_hash: 'legacy-resource-hash', extra: { kept: 1 } });
    expect((await rows(id)).versions).toEqual([]);
  });

  it('copies the fields a first write leaves alone, and never writes the old fields again', async () => {
    const { id, email } = await legacyMember();
    await users.setPasswordHash(id, 'reset-hash');
    await relationships.setRole(7, id, 'admin');
    expect(await users.findCredentialsByEmail(email)).toMatchObject({ password_hash: 'reset-hash', active: true, role: 'admin' });
    expect(await relationships.find(7, id)).toMatchObject({ status: 'locked', role: 'admin', password_hash: 'legacy-resource-hash' });
    const stored = await rows(id);
    expect(stored.user).toMatchObject({ password_hash: 'legacy-hash', active: true, role: 'admin' });
    expect(stored.relationship).toMatchObject({ status: 'locked', role: 'partner', password_hash: 'legacy-resource-hash' });
    expect(stored.versions).toEqual([
      expect.objectContaining({
        _id: `rel:7:${id}:1`,
        version: 1,
        state: { status: 'locked', role: 'admin', password_hash: 'legacy-resource-hash' },
      }),
      expect.objectContaining({ _id: `user:${id}:1`, version: 1, state: { password_hash: 'reset-hash', active: true, role: 'admin' } }),
    ]);
  });

  it('prunes versions superseded for ten minutes, and a profile write leaves the security state alone', async () => {
    const { id } = await legacyMember({ status: 'active' });
    expect(await relationships.move(7, id, ['active'], 'suspended')).toBe(true);
    expect(await relationships.move(7, id, ['suspended'], 'active')).toBe(true);
    expect(await relationships.move(7, id, ['active'], 'removed')).toBe(true);
    await relationships.mergeExtra(7, id, { late: true });
    await users.update(id, { city: 'Oslo' });
    expect(await relationships.listResourceIds(id)).toEqual([]);
    const { versions, relationship } = await rows(id);
    // Each version names the one it was decided on; version 1 the row's own fields.
    expect(versions.map(({ _id, base }) => [_id, base])).toEqual([
      [`rel:7:${id}:1`, null],
      [`rel:7:${id}:2`, versions[0]!['nonce']],
      [`rel:7:${id}:3`, versions[1]!['nonce']],
    ]);
    expect(versions[2]!['state']).toEqual({ status: 'removed', role: 'user', password_hash: null });
    // Leaving cleared the extra; only a write after it (a racing PUT /user) can add to it, and a rejoin clears it.
    expect(relationship?.['extra']).toEqual({ late: true });
    await db.collection('credentials').updateMany({ user_id: id }, { $set: { created_at: new Date(Date.now() - 11 * 60_000) } });
    expect(await relationships.attach(7, id)).toMatchObject({ created: true });
    expect(await relationships.find(7, id)).toMatchObject({ status: 'active', role: 'user', password_hash: null, extra: {} });
    expect(await relationships.listResourceIds(id)).toEqual([7]);
    expect((await rows(id)).versions.map((version) => version['_id'])).toEqual([`rel:7:${id}:4`]);
  });

  it('does not count a version that took again the key of a pruned one: the writer decides again on the newest', async () => {
    const { id, email } = await legacyMember();
    const scope = userScope(id);
    await users.setPasswordHash(id, 'first');
    // A writer read version 1 as the newest, then stalled while versions 2 and 3 landed and 2 was pruned.
    const stale = await credentials.read(id);
    await users.setPasswordHash(id, 'second');
    await users.changeCredentials(id, (current) => current && { ...current, role: 'root' });
    await db.collection('credentials').deleteOne({ _id: `${scope}:2` as never });
    let reads = 0;
    const slow = Object.assign(Object.create(credentials) as CredentialRepository, {
      // Its first read is the stale one; the later ones are fresh.
      read: (userId: number) => (reads++ === 0 ? Promise.resolve(stale) : credentials.read(userId)),
    });
    await slow.change(
      id,
      scope,
      async () => null,
      (current) => current && { ...current, password_hash: 'slow-reset' },
    );
    expect(await users.findCredentialsByEmail(email)).toMatchObject({ password_hash: 'slow-reset', role: 'root' });
    expect((await rows(id)).versions.map((version) => version['version'])).toEqual([1, 2, 3, 4]);
  });

  it('orders concurrent state moves: of two moves from one state exactly one lands', async () => {
    for (let round = 0; round < 5; round++) {
      const { id } = await legacyMember({ status: 'active' });
      const moved = await Promise.all([
        relationships.move(7, id, ['active'], 'locked'),
        relationships.move(7, id, ['active'], 'suspended'),
        relationships.move(7, id, ['active'], 'removed'),
      ]);
      expect(moved.filter(Boolean)).toHaveLength(1);
      const landed = (['locked', 'suspended', 'removed'] as const)[moved.indexOf(true)];
      expect((await relationships.find(7, id))?.status).toBe(landed);
    }
  });

  it('lands every reset on top of concurrent writes; a rehash of the old password never survives one', async () => {
    for (let round = 0; round < 5; round++) {
      const { id, email } = await legacyMember();
      const resets = Array.from({ length: 6 }, (_, index) => `reset-${index}`);
      await Promise.all([
        ...resets.map((hash) => users.setPasswordHash(id, hash)),
        ...Array.from({ length: 6 }, () => users.replacePasswordHash(id, 'legacy-hash', 'rehash-of-old')),
        users.changeCredentials(id, (current) => current && { ...current, role: 'root' }),
      ]);
      const user = await users.findCredentialsByEmail(email);
      expect(resets).toContain(user?.password_hash);
      expect(user?.role).toBe('root');
      // One unbroken line of versions, each decided on the one before, holding every reset.
      const { versions } = await rows(id);
      versions.sort((a, b) => (a['version'] as number) - (b['version'] as number));
      expect(versions.map((version) => version['version'])).toEqual(versions.map((_, index) => index + 1));
      expect(versions.slice(1).map((version) => version['base'])).toEqual(versions.slice(0, -1).map((version) => version['nonce']));
      const hashes = versions.map((version) => (version['state'] as { password_hash: string }).password_hash);
      expect(resets.filter((hash) => !hashes.includes(hash))).toEqual([]);
      expect(hashes.indexOf('rehash-of-old')).toBeLessThan(Math.min(...resets.map((hash) => hashes.indexOf(hash))));
    }
  });

  it('sets an initial resource password once, however many try at once', async () => {
    const { id } = await legacyMember({ password_hash: null });
    const set = await Promise.all(Array.from({ length: 6 }, (_, index) => relationships.setInitialPasswordHash(7, id, `first-${index}`)));
    expect(set.filter(Boolean)).toHaveLength(1);
    expect((await relationships.find(7, id))?.password_hash).toBe(`first-${set.indexOf(true)}`);
  });

  it('gives up with 503 service_unavailable when every attempt loses to another writer', async () => {
    const { id } = await legacyMember();
    const scope = userScope(id);
    const state = { password_hash: 'winner', active: true, role: 'user' as const };
    // Another writer lands the next version right after each of this writer's reads.
    const racing = Object.assign(Object.create(credentials) as CredentialRepository, {
      read: async (userId: number) => {
        const read = await credentials.read(userId);
        const version = read.versionOf(scope) + 1;
        await db
          .collection('credentials')
          .insertOne({ _id: `${scope}:${version}` as never, scope, user_id: id, version, state, created_at: new Date() });
        return read;
      },
    });
    let attempts = 0;
    const change = racing.change(
      id,
      scope,
      async () => state,
      (current) => {
        attempts++;
        return current && { ...current, password_hash: 'loser' };
      },
    );
    await expect(change).rejects.toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(attempts).toBe(20);
    expect((await users.findById(id))?.role).toBe('user');
  });
});
