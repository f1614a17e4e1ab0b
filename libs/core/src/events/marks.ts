import { MARK_RETENTION_MS, WITNESSED_EVENTS_FIELD } from './outbox.js';

/** A prepared event as its witness's write sees it: only its ID goes into the marks. */
interface Marking {
  readonly event: { readonly id: string };
}

/** Update operators that mark a witness with events (ADR 0198); merge them with `withMarks`. */
export interface EventMarks {
  $set: Record<string, Date>;
  $unset?: Record<string, ''>;
}

/**
 * Marks for `prepared`; with `asRead`, the witness as read before this write, its marks older
 * than the retention go in the same operation (different paths: no conflict on MongoDB).
 */
export const markedBy = (prepared: readonly Marking[], asRead?: object | null): EventMarks => {
  const now = new Date();
  const $set = Object.fromEntries(prepared.map(({ event }) => [`${WITNESSED_EVENTS_FIELD}.${event.id}`, now]));
  const held = ((asRead as Record<string, unknown> | null | undefined)?.[WITNESSED_EVENTS_FIELD] ?? {}) as Record<string, Date | string>;
  const stale = Object.entries(held).filter(([, markedAt]) => now.getTime() - new Date(markedAt).getTime() > MARK_RETENTION_MS);
  if (stale.length === 0) return { $set };
  return { $set, $unset: Object.fromEntries(stale.map(([id]) => [`${WITNESSED_EVENTS_FIELD}.${id}`, ''])) };
};

/** `update` with `marks` merged into its `$set` and `$unset`. */
export const withMarks = <U extends { $set?: object; $unset?: object }>(update: U, marks: EventMarks | undefined): U => {
  if (!marks) return update;
  const $unset = update.$unset || marks.$unset ? { $unset: { ...update.$unset, ...marks.$unset } } : {};
  return { ...update, $set: { ...update.$set, ...marks.$set }, ...$unset };
};

/** Fields that mark a witness being inserted with `prepared` events. */
export const markFields = (...prepared: Marking[]) => {
  const now = new Date();
  return { [WITNESSED_EVENTS_FIELD]: Object.fromEntries(prepared.map(({ event }) => [event.id, now])) };
};
