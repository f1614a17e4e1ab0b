import { createMember, createTenant } from '@masthead/testkit';
import type { Collection, Document } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStack } from './support.js';

/**
 * The lookups of sign-in, registration and the session check use an index on the embedded
 * database (issue 7, item 4; docs/adr/0090). The collections are the ones the identity service
 * created (with its declared indexes), the documents those the API wrote, and the filters the
 * repositories send (`findById` is `{_id}`, the credential read `{email}`), each with limit 1.
 * A few thousand other rows stand for a real member base: on a table of a handful of rows any
 * plan is cheap and the planner may rightly scan.
 */
describe('lookup plans on the embedded database', () => {
  const s = useStack();
  const FILLER = 3000;
  let arranged: { email: string; userId: number; resourceId: number };

  beforeAll(async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const signIn = (password: string) =>
      s.api('/authorization', { headers: { resource: tenant.publicKey }, json: { email: member.email, password } });
    // A failed attempt writes the throttle record; the sign-in after it a session and a refresh record.
    expect((await signIn('not-the-password')).status).toBe(401);
    const session = await signIn(member.password);
    expect(session.status).toBe(200);
    const db = s.db('identity');
    const fill = (name: string, make: (index: number) => Document) =>
      db.collection(name).insertMany(Array.from({ length: FILLER }, (_, index) => make(index)));
    await Promise.all([
      fill('users', (index) => ({ _id: 1_000_000 + index, email: `filler-${index}@example.test`, active: true })),
      fill('relationships', (index) => ({
        _id: `${tenant.resourceId}:${1_000_000 + index}`,
        resource_id: tenant.resourceId,
        user_id: 1_000_000 + index,
      })),
      fill('signin_failures', (index) => ({ _id: `filler-${index}@example.test`, failures: 1 })),
      fill('session_tokens', (index) => ({ _id: `filler-token-${index}`, session_id: 1_000_000 + index })),
      fill('sessions', (index) => ({ _id: 1_000_000 + index, user_id: 1_000_000 + index, resource_id: tenant.resourceId })),
      fill('refresh_tokens', (index) => ({ _id: `filler-refresh-${index}`, session_id: 1_000_000 + index, user_id: 1_000_000 + index })),
    ]);
    arranged = { email: member.email, userId: member.id, resourceId: tenant.resourceId };
  }, 120_000);

  /** The plan of `filter` with limit 1, as one line per plan node. */
  async function planOf(collection: Collection, filter: Document): Promise<string[]> {
    const explained = await collection.find(filter).limit(1).explain();
    const planner = explained['queryPlanner'] as Document;
    const lines: string[] = [];
    const walk = (node: Document, depth: number): void => {
      // FerretDB answers with PostgreSQL's EXPLAIN (FORMAT JSON) under queryPlanner.Plan;
      // MongoDB (testcontainers) with stages under queryPlanner.winningPlan.
      const label = node['Node Type'] ?? node['stage'];
      const detail = node['Index Name'] ? ` on ${node['Index Name']}` : node['indexName'] ? ` on ${node['indexName']}` : '';
      const condition = node['Index Cond'] ?? node['Filter'] ?? '';
      lines.push(`${'  '.repeat(depth)}${label}${detail}${condition ? ` (${condition})` : ''}`);
      for (const child of [...((node['Plans'] as Document[]) ?? []), ...(node['inputStage'] ? [node['inputStage'] as Document] : [])]) {
        walk(child, depth + 1);
      }
    };
    walk((planner['Plan'] ?? planner['winningPlan']) as Document, 0);
    return lines;
  }

  function expectIndexed(name: string, lines: string[]): void {
    console.info(`plan of ${name}:\n${lines.join('\n')}`);
    const text = lines.join('\n');
    expect(text).not.toMatch(/Seq Scan|COLLSCAN/);
    // PostgreSQL: a bitmap or index scan on a mirrored GIN index; MongoDB: an index stage.
    expect(text).toMatch(/(Bitmap Index Scan|Index Scan) on \S+_gin|IXSCAN|IDHACK|EXPRESS/);
  }

  it('reads a member by email (sign-in, registration) with an index', async () => {
    expectIndexed('users by email', await planOf(s.db('identity').collection('users'), { email: arranged.email }));
  });

  it('reads the relationship and the sign-in throttle record by key with an index', async () => {
    const db = s.db('identity');
    expectIndexed('relationship', await planOf(db.collection('relationships'), { _id: `${arranged.resourceId}:${arranged.userId}` }));
    expectIndexed('sign-in throttle', await planOf(db.collection('signin_failures'), { _id: arranged.email }));
  });

  it('reads the session by token hash, the session and the refresh record with an index', async () => {
    const db = s.db('identity');
    const token = await db.collection('session_tokens').findOne({ session_id: { $lt: 1_000_000 } });
    const refresh = await db.collection('refresh_tokens').findOne({ user_id: arranged.userId });
    expect(token).not.toBeNull();
    expect(refresh).not.toBeNull();
    expectIndexed('session token by hash', await planOf(db.collection('session_tokens'), { _id: token!._id }));
    expectIndexed('session by id', await planOf(db.collection('sessions'), { _id: token!['session_id'] }));
    expectIndexed('refresh record by hash', await planOf(db.collection('refresh_tokens'), { _id: refresh!._id }));
  });
});
