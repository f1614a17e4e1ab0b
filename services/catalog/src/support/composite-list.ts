import { isServiceError, fieldError, type FieldErrors } from '@masthead/core/errors';
import { buildListQuery, type FieldType, type PageRequest } from '@masthead/core/pagination';

/** A field of a list that spans several collections, joined in memory. */
export interface CompositeField<Entity extends string> {
  entity: Entity;
  /** Storage path in that entity's collection. */
  path: string;
  type: FieldType;
}

/**
 * What a list over several collections lets callers filter and sort on. Filters are translated
 * per collection by the shared `buildListQuery` (same value rules and messages as every list);
 * sorting happens in memory, so `sortOnly` may name fields no filter type fits (dates).
 */
export interface CompositeListSpec<Entity extends string> {
  entities: readonly Entity[];
  fields: Record<string, CompositeField<Entity>>;
  sortOnly: Record<string, Omit<CompositeField<Entity>, 'type'>>;
  defaultOrder: string;
}

export interface CompositeQuery<Entity extends string> {
  /** A MongoDB filter per entity (empty object: no condition). */
  conditions: Record<Entity, Record<string, unknown>>;
  order: { entity: Entity; path: string };
  /** 1 ascending, -1 descending. */
  direction: 1 | -1;
}

/** Validates a page request against the spec; one 409 names every bad filter and the order. */
export function buildCompositeQuery<Entity extends string>(request: PageRequest, spec: CompositeListSpec<Entity>): CompositeQuery<Entity> {
  const problems: FieldErrors = {};
  const perEntity = new Map<Entity, PageRequest['filter']>(spec.entities.map((entity) => [entity, {}]));
  for (const [name, value] of Object.entries(request.filter)) {
    const field = spec.fields[name];
    const bucket = field ? perEntity.get(field.entity) : undefined;
    if (bucket) bucket[name] = value;
    else problems[`filter.${name}`] = `${name} is not a filter of this list`;
  }
  const conditions = {} as Record<Entity, Record<string, unknown>>;
  for (const entity of spec.entities) {
    const fields = Object.fromEntries(Object.entries(spec.fields).filter(([, field]) => field.entity === entity));
    try {
      conditions[entity] = buildListQuery(
        { ...request, filter: perEntity.get(entity) ?? {}, orderBy: '' },
        { fields, defaultOrder: { path: '_id' } },
        {},
      ).filter;
    } catch (error) {
      if (!isServiceError(error) || !error.fields) throw error;
      Object.assign(problems, error.fields);
      conditions[entity] = {};
    }
  }
  const orderName = request.orderBy || spec.defaultOrder;
  const order = spec.fields[orderName] ?? spec.sortOnly[orderName];
  if (!order) problems['order'] = `${request.orderBy} is not a sortable field`;
  if (Object.keys(problems).length > 0) throw fieldError(problems);
  return { conditions, order: { entity: order!.entity, path: order!.path }, direction: request.sort === 'ASC' ? 1 : -1 };
}

type Sortable = string | number | boolean | Date | null | undefined;

/** MongoDB's order for the values we sort on: null/absent first, then numbers, strings, booleans, dates. */
export function compareValues(a: Sortable, b: Sortable): number {
  const rank = (value: Sortable) =>
    value === null || value === undefined
      ? 0
      : typeof value === 'number'
        ? 1
        : typeof value === 'string'
          ? 2
          : typeof value === 'boolean'
            ? 3
            : 4;
  const [left, right] = [rank(a), rank(b)];
  if (left !== right) return left - right;
  if (left === 0) return 0;
  const x = a instanceof Date ? a.getTime() : a;
  const y = b instanceof Date ? b.getTime() : b;
  // Binary (code point) order for strings, as MongoDB sorts without a collation.
  return x! < y! ? -1 : x! > y! ? 1 : 0;
}
