import type { mongo } from 'mongoose';

interface Waiting<T extends mongo.Document> {
  operation: mongo.AnyBulkWriteOperation<T>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface BulkFailure {
  writeErrors?: mongo.WriteError | mongo.WriteError[];
}

const MAX_BATCH = 100;

/**
 * One write's error, as the same write alone would have raised it: named `MongoServerError`, with
 * its code (11000: `isDuplicateKey`) and message (FerretDB's backend failures: `isDependencyFailure`).
 */
const writeFailure = (writeError: mongo.WriteError): Error =>
  Object.assign(new Error(writeError.errmsg ?? 'write failed'), { name: 'MongoServerError', code: writeError.code });

/**
 * Writes of one kind (inserts, or `updateOne`s) to one collection from concurrent requests, sent
 * together (ADR 0193): while a command is in flight, the writes that arrive wait for it and then
 * go as one unordered command (`insert` of many documents, `update` of many statements, each an
 * equality the caller chose). No timer: a write alone goes at once, and under load a command
 * carries what arrived meanwhile. Each caller learns its own outcome: a duplicate key rejects
 * only its insert, with code 11000 (`isDuplicateKey`, `insertIfAbsent`); a failed command
 * rejects every write it carried.
 */
export class CoalescedWrites<T extends mongo.Document> {
  private waiting: Array<Waiting<T>> = [];
  private sending = false;

  constructor(private readonly collection: mongo.Collection<T>) {}

  insertOne(document: mongo.OptionalId<T>): Promise<void> {
    return this.write({ insertOne: { document } });
  }

  updateOne(filter: mongo.Filter<T>, update: mongo.UpdateFilter<T>): Promise<void> {
    return this.write({ updateOne: { filter, update } });
  }

  private write(operation: mongo.AnyBulkWriteOperation<T>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ operation, resolve, reject });
      if (!this.sending) void this.send();
    });
  }

  private async send(): Promise<void> {
    this.sending = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MAX_BATCH);
        const failed = await this.failures(batch.map(({ operation }) => operation));
        batch.forEach(({ resolve, reject }, index) => (failed.has(index) ? reject(failed.get(index)) : resolve()));
      }
    } finally {
      this.sending = false;
    }
  }

  /** Sends one command; answers the error of each write that failed, by its index. */
  private async failures(operations: Array<mongo.AnyBulkWriteOperation<T>>): Promise<Map<number, unknown>> {
    const failed = new Map<number, unknown>();
    try {
      await this.collection.bulkWrite(operations, { ordered: false });
    } catch (error) {
      const { writeErrors } = error as BulkFailure;
      const perWrite = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
      // No per-write errors: the command itself failed (e.g. the database is away), for all.
      if (perWrite.length === 0) operations.forEach((_, index) => failed.set(index, error));
      for (const writeError of perWrite) {
        failed.set(writeError.index, writeFailure(writeError));
      }
    }
    return failed;
  }
}
