import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userScope } from '../src/credentials/credential.repository.js';
import { readMember } from '../src/credentials/member-read.js';
import { RecentCredentials } from '../src/credentials/recent-credentials.js';
import type { RelationshipRepository } from '../src/relationships/relationship.repository.js';
import { EMPTY_PROFILE, type UserRepository } from '../src/users/user.repository.js';
import { openMemberRepositories } from './member-repositories.js';

/**
 * The member path's moments-old credential reads (docs/adr/0216), with a lifetime far longer than
 * the test: whatever a read sees change, a write here or an announcement changed.
 */
describe('recent credentials', () => {
  const recent = new RecentCredentials(60_000);
  let db: Connection;
  let users: UserRepository;
  let relationships: RelationshipRepository;
  let nextId = 500;

  beforeAll(async () => {
    ({ db, users, relationships } = await openMemberRepositories('recent_credentials', { recent }));
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  const member = async () => {
    const id = nextId++;
    const now = new Date();
    await db.collection('users').insertOne({
      _id: id as never,
      ...EMPTY_PROFILE,
      email: `recent-${id}@example.test`,
      password_hash: 'h',
      active: true,
      role: 'user',
      created_at: now,
      updated_at: now,
    });
    await users.changeCredentials(id, (current) => current && { ...current, role: 'user' });
    return id;
  };
  /** A version written behind the repository's back, as another replica would. */
  const writtenElsewhere = (id: number, version: number, role: string) =>
    db.collection('credentials').insertOne({
      _id: `${userScope(id)}:${version}` as never,
      scope: userScope(id),
      user_id: id,
      version,
      state: { password_hash: 'h', active: true, role },
      nonce: `elsewhere-${version}`,
      base: null,
      created_at: new Date(),
    });
  const roleOnMemberPath = async (id: number) => (await readMember({ users, relationships }, id, 0, { recent: true })).user?.role;

  it('shares one read between the reads of the member path, and only them', async () => {
    const id = await member();
    expect(await roleOnMemberPath(id)).toBe('user');
    await writtenElsewhere(id, 2, 'admin');
    expect(await roleOnMemberPath(id)).toBe('user');
    // Everyone else reads afresh: sign-in, password checks, the writes' decisions.
    expect((await readMember({ users, relationships }, id, 0)).user?.role).toBe('admin');
    expect((await users.findCredentialsByEmail(`recent-${id}@example.test`))?.role).toBe('admin');
  });

  it('drops the member at a credential write of this process, and at an announcement of another', async () => {
    const id = await member();
    expect(await roleOnMemberPath(id)).toBe('user');
    await users.changeCredentials(id, (current) => current && { ...current, active: false });
    expect((await readMember({ users, relationships }, id, 0, { recent: true })).user?.active).toBe(false);

    await writtenElsewhere(id, 3, 'admin');
    expect(await roleOnMemberPath(id)).toBe('user');
    recent.changed(id); // what `member_access_changed` does
    expect(await roleOnMemberPath(id)).toBe('admin');
  });
});
