import { connectMongo } from '@masthead/core/mongo';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RevocationRepository } from '../src/entitlements/revocation.repository.js';
import type { RevocationRecord } from '../src/entitlements/revocation.schema.js';

/**
 * The revocation entries over the run's FerretDB (docs/adr/0248): every replica records the same
 * catalog event, so concurrent records of one change must leave one row; changes at different
 * seconds are rows of their own, never lost to a racing update.
 */
describe('revocation entries', () => {
  let db: Connection;
  let repository: RevocationRepository;

  beforeAll(async () => {
    db = await connectMongo({ url: inject('mongoUrl'), dbName: `revocations_${Date.now()}` });
    repository = new RevocationRepository(db);
    await repository.ready();
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  const member = (resourceId: number, userId: number, staleThrough: number): RevocationRecord => ({
    _id: `m:${resourceId}:${userId}:${staleThrough}`,
    kind: 'member',
    resource_id: resourceId,
    subject: userId,
    stale_through: staleThrough,
    expires_at: new Date((staleThrough + 960) * 1000),
  });
  const ids = async (resourceId: number) => (await repository.listFor(resourceId)).map((entry) => entry._id).sort();

  it('keeps one row per change however many replicas record it at once, and every change of a subject', async () => {
    await Promise.all([1000, 1000, 1000, 1003, 1001, 1003].map((stamp) => repository.record(member(5, 42, stamp))));
    expect(await ids(5)).toEqual(['m:5:42:1000', 'm:5:42:1001', 'm:5:42:1003']);
    expect(await repository.listFor(5)).toContainEqual(member(5, 42, 1003));
  });

  it("lists a resource's entries with those of every resource (0), and removes by ID", async () => {
    await repository.record(member(6, 1, 2000));
    await repository.record(member(0, 2, 2001));
    await repository.record({
      _id: 's:77:2002',
      kind: 'session',
      resource_id: 6,
      subject: 77,
      stale_through: 2002,
      expires_at: new Date(2_962_000),
    });
    expect(await ids(6)).toEqual(['m:0:2:2001', 'm:6:1:2000', 's:77:2002']);
    expect(await ids(5)).toEqual(['m:0:2:2001', 'm:5:42:1000', 'm:5:42:1001', 'm:5:42:1003']);
    await repository.remove(['m:6:1:2000', 's:77:2002']);
    expect(await ids(6)).toEqual(['m:0:2:2001']);
  });
});
