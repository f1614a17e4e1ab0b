import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CoalescedWrites, connectMongo, insertIfAbsent } from '../src/mongo/index.js';

interface Row {
  _id: number;
  value: number;
}

describe('coalesced writes', () => {
  let db: Connection;
  const commands: string[] = [];

  beforeAll(async () => {
    db = await connectMongo({ url: inject('mongoUrl'), dbName: `coalesced_${Date.now()}`, monitorCommands: true });
    db.getClient().on('commandStarted', (event) => {
      if (event.commandName === 'insert' || event.commandName === 'update') commands.push(event.commandName);
    });
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  it('sends the writes that arrive while one is in flight as one command, each with its own outcome', async () => {
    const rows = db.collection<Row>('rows');
    await rows.insertOne({ _id: 3, value: 0 });
    const inserts = new CoalescedWrites(rows);
    commands.length = 0;

    // The first goes alone; the other five wait for it and go together. Row 3 exists already.
    const outcomes = await Promise.all([1, 2, 3, 4, 5, 6].map((id) => insertIfAbsent(inserts.insertOne({ _id: id, value: id }))));

    expect(outcomes).toEqual([true, true, false, true, true, true]);
    expect(commands).toEqual(['insert', 'insert']);
    // As the insert alone would have failed: isDuplicateKey and isDependencyFailure read these.
    await expect(inserts.insertOne({ _id: 1, value: 9 })).rejects.toMatchObject({ name: 'MongoServerError', code: 11000 });
    expect(await rows.find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, value: 1 },
      { _id: 2, value: 2 },
      { _id: 3, value: 0 },
      { _id: 4, value: 4 },
      { _id: 5, value: 5 },
      { _id: 6, value: 6 },
    ]);

    const updates = new CoalescedWrites(rows);
    commands.length = 0;
    await Promise.all([1, 2, 3].map((id) => updates.updateOne({ _id: id }, { $max: { value: 10 * id } })));
    expect(commands).toEqual(['update', 'update']);
    expect((await rows.find({ _id: 3 }).toArray())[0]).toEqual({ _id: 3, value: 30 });
  });

  it('rejects the writes that fail, and sends the next ones', async () => {
    const rows = db.collection<Row>('rows_failing');
    const updates = new CoalescedWrites(rows);
    // An unknown operator fails each statement (or the command).
    const failing = [1, 2].map((id) =>
      updates.updateOne({ _id: id }, { $nosuch: { value: 1 } } as never).then(
        () => 'ok',
        () => 'failed',
      ),
    );
    expect(await Promise.all(failing)).toEqual(['failed', 'failed']);
    await new CoalescedWrites(rows).insertOne({ _id: 1, value: 1 });
    await updates.updateOne({ _id: 1 }, { $set: { value: 2 } });
    expect(await rows.findOne({ _id: 1 })).toEqual({ _id: 1, value: 2 });
  });
});
