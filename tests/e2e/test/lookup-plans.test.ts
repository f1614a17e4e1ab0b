import { createMember, createTenant } from '@masthead/testkit';
import type { Collection, Db, Document } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { catalogKit } from './catalog-support.js';
import { useStack } from './support.js';

/**
 * Every query of the five hot paths (GET /plans, GET /user, POST /authorization, its refresh, and
 * the session check behind every member request) uses an index (issue 7 item 4, issue 14; docs/adr
 * 0090, 0190, 0191): on the embedded database, PostgreSQL's plan through FerretDB's `explain` is
 * a bitmap or index scan on a mirrored GIN index, never a Seq Scan; for MongoDB, the collection
 * declares an index whose leading keys are the query's equality fields (and where a runtime is
 * found, MongoDB's own plan is an index stage). The collections are the ones the services
 * created, with their declared indexes; the filters are those the repositories send, each named
 * beside its query. A few thousand other rows stand for a real member base: on a table of a
 * handful of rows any plan is cheap and the planner may rightly scan.
 */
describe('lookup plans of the hot paths', () => {
  const s = useStack();
  const kit = catalogKit(s);
  const FILLER = 3000;
  let arranged: { email: string; userId: number; resourceId: number; planId: number; pricingId: number };

  beforeAll(async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const plan = await kit.plan(tenant, 'hot');
    const pricing = await kit.pricing(plan.id, 'Hot monthly');
    await kit.grant(tenant, member.id, pricing.id);
    const signIn = (password: string) =>
      s.api('/authorization', { headers: { resource: tenant.publicKey }, json: { email: member.email, password } });
    // A failed attempt writes the throttle record; the sign-in after it a session and a refresh record.
    expect((await signIn('not-the-password')).status).toBe(401);
    const session = await signIn(member.password);
    expect(session.status).toBe(200);
    const refreshed = await s.api('/authorization/refresh', {
      method: 'POST',
      headers: { resource: tenant.publicKey },
      json: { refresh_token: session.body['refresh_token'], response_type: 'token' },
    });
    expect(refreshed.status).toBe(200);

    const fill = (db: Db, name: string, make: (index: number) => Document) =>
      db.collection(name).insertMany(Array.from({ length: FILLER }, (_, index) => make(index)));
    const [identity, catalog, community] = [s.db('identity'), s.db('catalog'), s.db('community')];
    const other = 1_000_000;
    const now = new Date();
    await Promise.all([
      fill(identity, 'users', (index) => ({ _id: other + index, email: `filler-${index}@example.test`, active: true })),
      fill(identity, 'relationships', (index) => ({
        _id: `${tenant.resourceId}:${other + index}`,
        resource_id: tenant.resourceId,
        user_id: other + index,
      })),
      fill(identity, 'credentials', (index) => ({
        _id: `user:${other + index}:1`,
        scope: `user:${other + index}`,
        user_id: other + index,
        version: 1,
        state: { password_hash: null, active: true, role: 'user' },
      })),
      fill(identity, 'signin_failures', (index) => ({ _id: `filler-${index}@example.test`, failures: 1 })),
      fill(identity, 'session_tokens', (index) => ({ _id: `filler-token-${index}`, session_id: other + index })),
      fill(identity, 'sessions', (index) => ({ _id: other + index, user_id: other + index, resource_id: tenant.resourceId })),
      fill(identity, 'refresh_tokens', (index) => ({ _id: `filler-refresh-${index}`, session_id: other + index, user_id: other + index })),
      fill(identity, 'secret_uses', (index) => ({ _id: `refresh:filler-${index}`, used_at: now })),
      // Every filler membership in the same resource: the common key of the compound index.
      fill(catalog, 'memberships', (index) => ({
        _id: other + index,
        resource_id: tenant.resourceId,
        user_id: other + index,
        active: true,
      })),
      fill(catalog, 'membership_history', (index) => ({ _id: other + index, resource_id: tenant.resourceId, user_id: other + index })),
      fill(catalog, 'pricings', (index) => ({ _id: other + index, resource_id: other + index, plan_id: other + index, active: true })),
      fill(catalog, 'plans', (index) => ({ _id: other + index, resource_id: other + index, active: true, private: false })),
      fill(community, 'team_members', (index) => ({
        _id: other + index,
        team_id: other + index,
        user_id: other + index,
        status: 'active',
      })),
      fill(community, 'ti_event_ticket_passes', (index) => ({
        _id: other + index,
        resource_id: tenant.resourceId,
        assign_id: other + index,
      })),
      fill(community, 'teams', (index) => ({ _id: other + index, name: `Team ${index}` })),
      fill(s.db('accounts'), 'resources', (index) => ({ _id: other + index, public_key: `filler-${index}` })),
    ]);
    arranged = { email: member.email, userId: member.id, resourceId: tenant.resourceId, planId: plan.id, pricingId: pricing.id };
  }, 120_000);

  /** The plan of `filter` (limit 1 for a single-row read, the sort where the query sorts), as one line per plan node. */
  async function planOf(collection: Collection, filter: Document, options: { sort?: Document; many?: boolean } = {}): Promise<string[]> {
    let cursor = collection.find(filter);
    if (options.sort) cursor = cursor.sort(options.sort);
    if (!options.many && !options.sort) cursor = cursor.limit(1);
    const planner = (await cursor.explain())['queryPlanner'] as Document;
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

  /**
   * The query's plan uses an index, and the collection declares one for MongoDB: an index led by
   * one of the query's equality fields that holds all of them, or `_id` (unique) among them.
   */
  async function expectIndexed(
    name: string,
    collection: Collection,
    filter: Document,
    options: { sort?: Document; many?: boolean } = {},
  ): Promise<void> {
    const lines = await planOf(collection, filter, options);
    console.info(`plan of ${name}:\n${lines.join('\n')}`);
    const text = lines.join('\n');
    expect(text, name).not.toMatch(/Seq Scan|COLLSCAN/);
    // Without statistics PostgreSQL cannot know that `_id` is unique and may AND its one-row
    // bitmap with a tenant key's (a resource's pricings); any other AND reads a common key's
    // whole bitmap and is what one multicolumn mirror per index avoids (ADR 0190).
    if (text.includes('BitmapAnd')) expect(text, name).toMatch(/Bitmap Index Scan on \S+ \(\(\(\S+ -> '_id'::text\)/);
    // PostgreSQL: a bitmap or index scan on a mirrored GIN index; MongoDB: an index stage.
    expect(text, name).toMatch(/(Bitmap Index Scan|Index Scan) on \S+_gin|IXSCAN|IDHACK|EXPRESS/);
    const equalities = Object.entries(filter)
      .filter(([, value]) => value === null || typeof value !== 'object' || value instanceof Date)
      .map(([field]) => field);
    const declared = (await collection.listIndexes().toArray()).map((index) => Object.keys(index['key'] as Document));
    const served =
      equalities.includes('_id') ||
      declared.some((keys) => equalities.includes(keys[0]!) && equalities.every((field) => keys.includes(field)));
    expect(served, `${name}: an index led by ${equalities.join(', ')} among ${JSON.stringify(declared)}`).toBe(true);
  }

  describe('session check (Authenticate) and sign-in, identity', () => {
    it('reads the member by email, the relationship and the throttle record by key', async () => {
      const db = s.db('identity');
      await expectIndexed('users by email (findCredentialsByEmail)', db.collection('users'), { email: arranged.email });
      await expectIndexed('users by id (findById)', db.collection('users'), { _id: arranged.userId });
      await expectIndexed('relationship (find)', db.collection('relationships'), { _id: `${arranged.resourceId}:${arranged.userId}` });
      // Every scope of the member's security state in one equality (docs/adr/0210).
      await expectIndexed(
        'member credentials (CredentialRepository.read)',
        db.collection('credentials'),
        { user_id: arranged.userId },
        { many: true },
      );
      await expectIndexed('sign-in throttle (assertAllowed)', db.collection('signin_failures'), { _id: arranged.email });
      await expectIndexed('session ID counter (allocateId)', db.collection('counters'), { _id: 'sessions' });
    });

    it('reads the session by token hash and the session by ID', async () => {
      const db = s.db('identity');
      const token = await db.collection('session_tokens').findOne({ session_id: { $lt: 1_000_000 } });
      expect(token).not.toBeNull();
      await expectIndexed('session token by hash (findByTokenHash)', db.collection('session_tokens'), { _id: token!._id });
      await expectIndexed('session by id (findSession)', db.collection('sessions'), { _id: token!['session_id'] });
      // A session past its sign-in expiry lives while its newest token does (device limits, docs/adr/0204).
      await expectIndexed('session tokens by session (sessionExpiry)', db.collection('session_tokens'), {
        session_id: token!['session_id'],
      });
    });

    it('revokes sessions over a device limit and deletes their refresh records by equality (MemberSessions.revoke)', async () => {
      const db = s.db('identity');
      const session = await db.collection('sessions').findOne({ user_id: arranged.userId });
      expect(session).not.toBeNull();
      await expectIndexed('session to revoke', db.collection('sessions'), { _id: session!._id, revoked_at: null });
      await expectIndexed('refresh records of a revoked session', db.collection('refresh_tokens'), { session_id: session!._id });
    });
  });

  describe('refresh, identity', () => {
    it('reads the refresh record and the claim of its use by hash', async () => {
      const db = s.db('identity');
      const refresh = await db.collection('refresh_tokens').findOne({ user_id: arranged.userId });
      const claim = await db.collection('secret_uses').findOne({ _id: { $regex: /^refresh:[0-9a-f]{64}$/ } as never });
      expect(refresh).not.toBeNull();
      expect(claim).not.toBeNull();
      await expectIndexed('refresh record by hash (findRefreshToken)', db.collection('refresh_tokens'), { _id: refresh!._id });
      await expectIndexed('claim of use (findUse)', db.collection('secret_uses'), { _id: claim!._id });
    });
  });

  describe('profile and sign-in result, catalog (ListMemberships on a cache miss)', () => {
    it('reads the memberships, their history, pricings and plans of one member with an index', async () => {
      const db = s.db('catalog');
      const member = { resource_id: arranged.resourceId, user_id: arranged.userId };
      await expectIndexed(
        'active memberships (listActive)',
        db.collection('memberships'),
        { ...member, active: true },
        {
          sort: { created_at: -1, _id: -1 },
        },
      );
      await expectIndexed('membership history (listForUser)', db.collection('membership_history'), member, {
        sort: { created_at: -1, _id: -1 },
      });
      // One membership, one resource: oneOrIn writes equalities (ADR 0191).
      await expectIndexed('pricings of the memberships (findByIdsAcross)', db.collection('pricings'), {
        _id: arranged.pricingId,
        resource_id: arranged.resourceId,
      });
      await expectIndexed('plans of the pricings (findByIdsAcross)', db.collection('plans'), {
        _id: arranged.planId,
        resource_id: arranged.resourceId,
      });
    });
  });

  describe('profile and sign-in result, community (GetMemberSummary on a cache miss)', () => {
    it("reads the member's team relationships, teams and assigned passes with an index", async () => {
      const db = s.db('community');
      await expectIndexed(
        'current team relationships (listCurrentForUser)',
        db.collection('team_members'),
        { user_id: arranged.userId, status: { $ne: 'removed' } },
        { sort: { _id: 1 } },
      );
      await expectIndexed('a team by id (findByIds: one read per team)', db.collection('teams'), { _id: 1_000_001 });
      await expectIndexed(
        'assigned passes (listAssignedTo)',
        db.collection('ti_event_ticket_passes'),
        { resource_id: arranged.resourceId, assign_id: arranged.userId },
        { sort: { _id: 1 } },
      );
    });
  });

  describe('GET /plans on a cache miss, catalog, and the resource behind every request, accounts', () => {
    it('reads the page of plans and their pricings by resource, and the resource by key or ID', async () => {
      const catalog = s.db('catalog');
      await expectIndexed(
        'page of public plans (listPublic)',
        catalog.collection('plans'),
        { resource_id: arranged.resourceId, active: true, private: false },
        { sort: { created_at: -1, _id: -1 } },
      );
      await expectIndexed(
        'pricings of the page (listActiveForPlans)',
        catalog.collection('pricings'),
        { resource_id: arranged.resourceId, plan_id: { $in: [arranged.planId] }, active: true },
        { sort: { _id: 1 } },
      );
      const accounts = s.db('accounts');
      const resource = await accounts.collection('resources').findOne({ _id: arranged.resourceId as never });
      await expectIndexed('resource by public key (findByPublicKey)', accounts.collection('resources'), {
        public_key: resource!['public_key'],
      });
      await expectIndexed('resource by id (findById)', accounts.collection('resources'), { _id: arranged.resourceId });
    });
  });
});
