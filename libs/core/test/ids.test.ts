import { Schema, type Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectMongo, insertWithNextId } from '../src/mongo/index.js';

interface Thing {
  _id: number;
  label: string;
}

describe('insertWithNextId on the test database (FerretDB by default)', () => {
  let db: Connection;

  beforeAll(async () => {
    db = await connectMongo({ url: inject('mongoUrl'), dbName: `ids_${Date.now()}` });
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  it('gives distinct, positive IDs to 200 parallel inserts from four independent connections', async () => {
    // Four connections stand for four service replicas: their proposals really race.
    const connections = await Promise.all([0, 1, 2, 3].map(() => connectMongo({ url: inject('mongoUrl'), dbName: db.name })));
    const schema = new Schema<Thing>({ _id: Number, label: String }, { collection: 'things' });
    const models = connections.map((connection) => connection.model<Thing>('Thing', schema));
    const created = await Promise.all(
      Array.from({ length: 200 }, (_, index) => insertWithNextId(connections[index % 4]!, models[index % 4]!, { label: `t${index}` })),
    );
    await Promise.all(connections.map((connection) => connection.close()));
    const model = db.model<Thing>('Thing', schema);
    const ids = created.map((thing) => thing._id);
    expect(new Set(ids).size).toBe(200);
    expect(Math.min(...ids)).toBeGreaterThan(0);
    expect(await model.countDocuments()).toBe(200);
    const stored = await model.find().lean();
    expect(new Set(stored.map((thing) => thing.label)).size).toBe(200);
  });

  it('hands out blocks of IDs: one counter update per block, distinct IDs across four racing connections', async () => {
    const connections = await Promise.all([0, 1, 2, 3].map(() => connectMongo({ url: inject('mongoUrl'), dbName: db.name })));
    const schema = new Schema<Thing>({ _id: Number, label: String }, { collection: 'blocks' });
    const models = connections.map((connection) => connection.model<Thing>('Block', schema));
    const created = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        insertWithNextId(connections[index % 4]!, models[index % 4]!, { label: `b${index}` }, { block: 16 }),
      ),
    );
    await Promise.all(connections.map((connection) => connection.close()));
    const ids = created.map((thing) => thing._id);
    expect(new Set(ids).size).toBe(200);
    // 50 inserts per connection take 4 blocks of 16 each when no update is lost (more if some are).
    const counter = await db.collection<{ _id: string; seq: number }>('counters').findOne({ _id: 'blocks' });
    expect(counter!.seq).toBeGreaterThanOrEqual(Math.max(...ids));
    expect(counter!.seq).toBeLessThanOrEqual(4 * 4 * 16 * 2);
  });

  it('leaves a block whose IDs turn out taken and continues above them', async () => {
    const model = db.model<Thing>('Taken', new Schema<Thing>({ _id: Number, label: String }, { collection: 'taken' }));
    const first = await insertWithNextId(db, model, { label: 'first' }, { block: 10 });
    // Another writer takes the next IDs of this block behind the counter's back.
    await model.create([2, 3, 4].map((offset) => ({ _id: first._id + offset - 1, label: 'elsewhere' })));
    const next = await insertWithNextId(db, model, { label: 'next' }, { block: 10 });
    expect(next._id).toBeGreaterThan(first._id + 3);
    expect(await model.countDocuments({ _id: next._id, label: 'next' })).toBe(1);
  });

  it('skips IDs taken by rows written with explicit IDs', async () => {
    const model = db.model<Thing>('Other', new Schema<Thing>({ _id: Number, label: String }, { collection: 'others' }));
    await model.create([
      { _id: 1, label: 'imported' },
      { _id: 2, label: 'imported' },
    ]);
    const next = await insertWithNextId(db, model, { label: 'new' });
    expect(next._id).toBe(3);
  });

  it('rethrows a duplicate on another unique index instead of retrying', async () => {
    const schema = new Schema<Thing>({ _id: Number, label: String }, { collection: 'uniques' });
    schema.index({ label: 1 }, { unique: true });
    const model = db.model<Thing>('Unique', schema);
    await model.createIndexes();
    await insertWithNextId(db, model, { label: 'same' });
    await expect(insertWithNextId(db, model, { label: 'same' })).rejects.toMatchObject({ code: 11000 });
    expect(await model.countDocuments()).toBe(1);
  });
});
