import { connectMongo } from '@masthead/core/mongo';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AddressLimiter } from '../src/throttling/address-limiter.js';

/** The per-address limiter on the test database (FerretDB by default; docs/adr/0081). */
const LIMIT = 40;

describe('AddressLimiter across replicas', () => {
  let db: Connection;
  beforeAll(async () => {
    db = await connectMongo({ url: inject('mongoUrl'), dbName: `limiter_${Date.now()}` });
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  it('lets exactly `limit` of 100 parallel first requests from four connections through', async () => {
    // Four connections stand for four identity replicas: their slot claims really race.
    const connections = await Promise.all([0, 1, 2, 3].map(() => connectMongo({ url: inject('mongoUrl'), dbName: db.name })));
    const limiters = connections.map((connection) => new AddressLimiter(connection));
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        limiters[index % 4]!.consume('burst', '192.0.2.1', LIMIT).then(
          () => 'counted',
          (error: { status?: number }) => error.status ?? String(error),
        ),
      ),
    );
    await Promise.all(connections.map((connection) => connection.close()));
    expect(outcomes.filter((outcome) => outcome === 'counted')).toHaveLength(LIMIT);
    expect(outcomes.filter((outcome) => outcome === 429)).toHaveLength(60);
    // Another address and another action keep their own budgets.
    const limiter = new AddressLimiter(db);
    await expect(limiter.consume('burst', '192.0.2.2', LIMIT)).resolves.toBeUndefined();
    await expect(limiter.consume('other', '192.0.2.1', LIMIT)).resolves.toBeUndefined();
    await expect(limiter.consume('burst', '192.0.2.1', LIMIT)).rejects.toMatchObject({ status: 429 });
  });
});
