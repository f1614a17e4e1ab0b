import type { Collection, Connection, Model, mongo } from 'mongoose';
import { rowsOf } from './driver.js';

/** Counters collection: one document per entity collection, `{_id: name, seq: last issued}`. */
const COUNTERS = 'counters';
const MAX_ATTEMPTS = 50;

type Counters = Collection<{ _id: string; seq: number }>;
/** Any model: only its collection's name keys the counter. */
type NamedCollection = { collection: { collectionName: string } };

/**
 * A unique index refused the write. MongoDB reports E11000; FerretDB's SQLite backend reports an
 * update's violation as code 1 with "UNIQUE constraint failed". FerretDB 1.24 names neither the
 * index nor the key, so a caller that must know which key clashed re-reads by that key instead
 * of parsing the error. The one definition for every service.
 */
export const isDuplicateKey = (error: unknown): boolean =>
  (error as { code?: number })?.code === 11000 || /E11000|UNIQUE constraint failed/.test((error as Error)?.message ?? '');

/**
 * A filter value matching any of `values`: the value itself when there is one, else `$in`.
 * FerretDB pushes only equalities down to PostgreSQL, so `$in` — even of one value — reads the
 * whole collection there, while an equality uses the index (ADR 0090, 0191). MongoDB serves both.
 */
export const oneOrIn = <T>(values: readonly T[]): T | { $in: T[] } => (values.length === 1 ? values[0]! : { $in: [...values] });

/** Per connection and key, the tail of the queue of pending tasks. */
const taskQueues = new WeakMap<Connection, Map<string, Promise<unknown>>>();

/**
 * Runs the tasks of one key one after another within this connection (a task's failure does not
 * stop the next). FerretDB applies `$inc` and friends read-then-write (ADR 0002), so parallel
 * claims on one counter from one process would mostly collide; in sequence they cannot, and only
 * other processes' claims remain to be settled by a unique index. A key's queue is dropped once
 * it drains, so per-client keys do not accumulate.
 */
export function inSequence<T>(connection: Connection, key: string, task: () => Promise<T>): Promise<T> {
  const queues = taskQueues.get(connection) ?? new Map<string, Promise<unknown>>();
  taskQueues.set(connection, queues);
  const result = (queues.get(key) ?? Promise.resolve()).then(task, task);
  const tail = result.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return result;
}

/**
 * Proposes the next ID (the last of the next `count`). Two first-ever upserts can race and one
 * fails with a duplicate key (MongoDB documents this for upserts; FerretDB does it too): the
 * counter exists then, retry.
 */
async function proposeId(counters: Counters, name: string, count = 1): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      const counter = await counters.findOneAndUpdate({ _id: name }, { $inc: { seq: count } }, { upsert: true, returnDocument: 'after' });
      if (typeof counter?.seq !== 'number') throw new Error('counter update returned no sequence');
      return counter.seq;
    } catch (error) {
      if (!isDuplicateKey(error) || attempt >= 3) throw error;
    }
  }
}

/**
 * Integer public IDs (DESIGN.md "IDs"). The counter's `$inc` proposes the next ID; the insert of
 * the entity with that ID as its `_id` is what claims it. On MongoDB the `$inc` alone is atomic;
 * FerretDB 1.x applies it read-then-write (FerretDB issue 3040), so two callers can be handed the
 * same number. The unique `_id` makes the second insert fail with a duplicate key, and that caller
 * asks again. Within one process proposals run in sequence (see `inSequence`). IDs stay
 * distinct on both servers; they are increasing but not gap-free.
 */
export async function insertWithNextId<T extends { _id: number }>(
  connection: Connection,
  model: Model<T>,
  document: Omit<T, '_id'>,
  options: IdOptions = {},
): Promise<T> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const id = await allocateId(connection, model, options);
    const row = { ...document, ...(options.fieldsFor ? await options.fieldsFor(id) : {}), _id: id } as T;
    try {
      if (!options.plain) return (await model.create(row)).toObject() as T;
      await rowsOf(model).insertOne(row as mongo.OptionalUnlessRequiredId<T>);
      return row;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // FerretDB's duplicate-key error does not name the index: the ID clashed only if a row
      // holds it; otherwise another unique index refused the row, which is the caller's conflict.
      if (!(await model.exists({ _id: id }))) throw error;
      await settleIdClash(connection, model, id);
    }
  }
  throw new Error(`could not allocate an ID in ${model.collection.collectionName}`);
}

export interface IdOptions {
  /**
   * IDs taken from the counter at once and handed out in turn by this process (default 1): one
   * counter update (a contended read-modify-write on FerretDB) then serves `block` inserts
   * (ADR 0191). IDs stay unique and increase within a process; between replicas they interleave,
   * so their order is no longer the order of creation, and a restart leaves a block's rest unused.
   */
  block?: number;
  /**
   * Inserts `document` as given through the driver, without mongoose's document (casting,
   * defaults, validation: ~0.25 ms of CPU an insert). For hot paths whose caller writes every
   * field itself (ADR 0191).
   */
  plain?: boolean;
  /**
   * Extra fields for the attempt that proposes `id`, e.g. the mark of an event prepared for this
   * row (`markFields` of @masthead/core/events): an attempt whose ID clashes inserts nothing.
   */
  fieldsFor?: (id: number) => Promise<Record<string, unknown>>;
}

/** Per connection and collection, the rest of a block of IDs taken from its counter. */
const reservedIds = new WeakMap<Connection, Map<string, { next: number; last: number }>>();

function reservedOf(connection: Connection): Map<string, { next: number; last: number }> {
  const reserved = reservedIds.get(connection) ?? new Map<string, { next: number; last: number }>();
  reservedIds.set(connection, reserved);
  return reserved;
}

/**
 * The next proposed ID of the model's collection, for a caller that inserts the row itself (for
 * instance under another unique key it probes). A duplicate key on `_id` then calls for
 * `settleIdClash` and a new proposal.
 */
export function allocateId(connection: Connection, model: NamedCollection, { block = 1 }: IdOptions = {}): Promise<number> {
  const name = model.collection.collectionName;
  const counters: Counters = connection.collection(COUNTERS);
  if (block <= 1) return inSequence(connection, name, () => proposeId(counters, name));
  return inSequence(connection, name, async () => {
    const reserved = reservedOf(connection);
    const current = reserved.get(name);
    if (current && current.next <= current.last) return current.next++;
    const last = await proposeId(counters, name, block);
    reserved.set(name, { next: last - block + 2, last });
    return last - block + 1;
  });
}

/**
 * A proposed ID was taken (lost counter update on FerretDB, or a row with an explicit ID): catch
 * up, and give up the rest of a block, which another replica may hold as well.
 */
export async function settleIdClash(connection: Connection, model: NamedCollection, id: number): Promise<void> {
  const counters: Counters = connection.collection(COUNTERS);
  reservedOf(connection).delete(model.collection.collectionName);
  await counters.updateOne({ _id: model.collection.collectionName }, { $max: { seq: id } });
}
