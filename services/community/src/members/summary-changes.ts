import type { EventPublisher } from '@masthead/core/events';
import type { Connection, Document, Model, MongooseQueryMiddleware, Query, Schema } from 'mongoose';

/**
 * Identity keeps members' profiles, this service's member summary included (teams, assigned
 * passes), in its profile cache (ADR 0191). Every write to the rows a summary is made of
 * announces `member_summary_changed` with the members concerned, before the write returns.
 *
 * The announcement hangs on the schemas, not on repository methods: it covers every write through
 * a model (document `save`, `insertMany` and the query writes below), whichever method makes it,
 * now or later. It publishes through the publisher registered for the model's connection (the
 * service's, `announceSummaryChanges`); other connections, such as a test's own, announce
 * nothing. `bulkWrite` and the raw driver pass no middleware: a write that uses them must
 * announce itself.
 */
const publishers = new WeakMap<Connection, EventPublisher>();

export function announceSummaryChanges(connection: Connection, events: EventPublisher): void {
  publishers.set(connection, events);
}

/** How a collection's rows name the members whose summaries they are part of. */
export type SummaryRows = 'team_members' | 'teams' | 'passes';

const QUERY_WRITES: MongooseQueryMiddleware[] = [
  'updateOne',
  'updateMany',
  'replaceOne',
  'findOneAndUpdate',
  'findOneAndReplace',
  'deleteOne',
  'deleteMany',
  'findOneAndDelete',
];

/** The member field of a row, by kind; a team names its members through team_members. */
const MEMBER_FIELD: Record<Exclude<SummaryRows, 'teams'>, string> = { team_members: 'user_id', passes: 'assign_id' };

/** Members a query write touches, read before it runs (its filter may not match afterwards). */
const touched = new WeakMap<object, Set<number>>();

const ids = (values: unknown[]): number[] => values.filter((value): value is number => typeof value === 'number' && value > 0);

async function membersOf(connection: Connection, kind: SummaryRows, rows: Array<Record<string, unknown>>): Promise<number[]> {
  if (kind !== 'teams') return ids(rows.map((row) => row[MEMBER_FIELD[kind]]));
  const teamIds = ids(rows.map((row) => row['_id']));
  if (teamIds.length === 0) return [];
  const members = await connection
    .collection('team_members')
    .find({ team_id: { $in: teamIds } }, { projection: { user_id: 1 } })
    .toArray();
  return ids(members.map((row) => row['user_id']));
}

async function announce(connection: Connection, userIds: Iterable<number>): Promise<void> {
  const unique = [...new Set(userIds)];
  if (unique.length > 0) await publishers.get(connection)?.publish({ name: 'member_summary_changed', payload: { user_ids: unique } });
}

/** Members a write's update sets directly (`user_id`, `assign_id`), plain or under `$set`. */
function membersSetBy(kind: SummaryRows, update: unknown): number[] {
  if (kind === 'teams' || !update || typeof update !== 'object') return [];
  const field = MEMBER_FIELD[kind];
  const plain = update as Record<string, unknown>;
  const set = (plain['$set'] ?? {}) as Record<string, unknown>;
  return ids([plain[field], set[field]]);
}

/** Registers the announcing hooks on a schema whose rows are part of member summaries. */
export function watchSummaryRows(schema: Schema, kind: SummaryRows): void {
  schema.pre(QUERY_WRITES, async function (this: Query<unknown, unknown>) {
    const connection = this.model.db;
    if (!publishers.has(connection)) return;
    const projection = kind === 'teams' ? { _id: 1 } : { [MEMBER_FIELD[kind]]: 1 };
    const rows = await this.model.find(this.getFilter(), projection).lean<Array<Record<string, unknown>>>().exec();
    touched.set(this, new Set(await membersOf(connection, kind, rows)));
  });
  schema.post(QUERY_WRITES, async function (this: Query<unknown, unknown>) {
    const connection = this.model.db;
    if (!publishers.has(connection)) return;
    await announce(connection, [...(touched.get(this) ?? []), ...membersSetBy(kind, this.getUpdate())]);
  });
  schema.post('save', async function (this: Document) {
    const connection = (this.constructor as Model<unknown>).db;
    if (!publishers.has(connection)) return;
    await announce(connection, await membersOf(connection, kind, [this.toObject() as Record<string, unknown>]));
  });
  schema.post('insertMany', async function (this: Model<unknown>, docs: unknown) {
    if (!publishers.has(this.db)) return;
    const rows = (docs as Document[]).map((doc) => doc.toObject() as Record<string, unknown>);
    await announce(this.db, await membersOf(this.db, kind, rows));
  });
}
