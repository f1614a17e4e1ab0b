import { connectMongo } from '@masthead/core/mongo';
import { inject } from 'vitest';
import { MemberSessions } from '../src/access/member-sessions.js';
import { CredentialRepository } from '../src/credentials/credential.repository.js';
import type { RecentCredentials } from '../src/credentials/recent-credentials.js';
import { RelationshipRepository } from '../src/relationships/relationship.repository.js';
import { ProfileCache } from '../src/users/profile-cache.js';
import { UserRepository } from '../src/users/user.repository.js';

/** The member repositories as app.ts composes them, over a new database of the run's FerretDB. */
export async function openMemberRepositories(name: string, options: { recent?: RecentCredentials } = {}) {
  const db = await connectMongo({ url: inject('mongoUrl'), dbName: `${name}_${Date.now()}` });
  const changes = new ProfileCache(60_000);
  const credentials = new CredentialRepository({ db, changes, recent: options.recent });
  const users = new UserRepository({ db, changes, credentials });
  const relationships = new RelationshipRepository({ db, memberSessions: new MemberSessions(db), changes, credentials });
  await Promise.all([users.ready(), relationships.ready(), credentials.ready()]);
  return { db, credentials, users, relationships };
}
