import { fieldError } from '../errors/index.js';
import type { Paginator as WirePaginator } from '@masthead/proto/common';
import type { FilterValue, PageRequest } from './parse.js';

export type FieldType = 'text' | 'number' | 'boolean';

export interface FieldSpec {
  /** Storage path of the field. */
  path: string;
  type: FieldType;
}

/** What one list operation lets callers filter and sort on, by the names the spec uses. */
export interface ListSpec {
  fields: Record<string, FieldSpec>;
  /** Names usable in `order`/`by`; defaults to every filterable field. */
  sortable?: string[];
  defaultOrder: { path: string; sort?: 'ASC' | 'DESC' };
}

/**
 * List fields that answer to their bare name and to the name with the table prefix the spec
 * writes (`filter[Plans.id]`, `by=SubscriptionsHistory.action`): `prefixedFields('Plans', {id})`
 * gives `id` and `Plans.id`, both with the same spec.
 */
export function prefixedFields(prefix: string, fields: Record<string, FieldSpec>): Record<string, FieldSpec> {
  return Object.fromEntries(
    Object.entries(fields).flatMap(([name, spec]) => [[name, spec] as const, [`${prefix}.${name}`, spec] as const]),
  );
}

export interface MongoListQuery {
  filter: Record<string, unknown>;
  sort: Record<string, 1 | -1>;
  skip: number;
  limit: number;
}

/**
 * The page numbers of a list answer, as the common Paginator message carries them: services
 * build it once here, and the gateway serializer alone spells it in the spec's snake_case.
 */
export type Paginator = WirePaginator;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

function toBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === '1' || value === 'true') return true;
  if (value === 0 || value === '0' || value === 'false') return false;
  return undefined;
}

function condition(name: string, spec: FieldSpec, value: FilterValue, problems: Record<string, string>): unknown {
  const values = Array.isArray(value) ? value : [value];
  switch (spec.type) {
    case 'text': {
      // Case-insensitive substring match; an array matches any of its items (one alternation,
      // because FerretDB does not accept regular expressions inside $in).
      const alternatives = values.map((item) => escapeRegExp(String(item ?? '')));
      return { $regex: alternatives.length === 1 ? alternatives[0] : `(${alternatives.join('|')})`, $options: 'i' };
    }
    case 'number': {
      const numbers = values.map(toNumber);
      if (numbers.some((item) => item === undefined)) {
        problems[`filter.${name}`] = `${name} takes a number or an array of numbers`;
        return undefined;
      }
      return Array.isArray(value) ? { $in: numbers } : numbers[0];
    }
    case 'boolean': {
      const booleans = values.map(toBoolean);
      if (booleans.some((item) => item === undefined)) {
        problems[`filter.${name}`] = `${name} takes true or false`;
        return undefined;
      }
      return Array.isArray(value) ? { $in: booleans } : booleans[0];
    }
  }
}

/** Translates a parsed page request into a MongoDB query through the operation's whitelist. */
export function buildListQuery(request: PageRequest, spec: ListSpec, scope: Record<string, unknown>): MongoListQuery {
  const problems: Record<string, string> = {};
  const filter: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(request.filter)) {
    const field = spec.fields[name];
    if (!field) {
      problems[`filter.${name}`] = `${name} is not a filter of this list`;
      continue;
    }
    const built = condition(name, field, value, problems);
    if (built !== undefined) filter[field.path] = built;
  }
  let sortPath = spec.defaultOrder.path;
  if (request.orderBy) {
    const sortable = spec.sortable ?? Object.keys(spec.fields);
    const field = spec.fields[request.orderBy];
    if (!field || !sortable.includes(request.orderBy)) problems['order'] = `${request.orderBy} is not a sortable field`;
    else sortPath = field.path;
  }
  if (Object.keys(problems).length > 0) throw fieldError(problems);
  // The tenant scope is applied last: no caller filter can widen it to another resource.
  Object.assign(filter, scope);
  const direction = request.sort === 'ASC' ? 1 : -1;
  // `_id` breaks ties so that pages never overlap when the sort field repeats.
  const sort: Record<string, 1 | -1> = { [sortPath]: direction };
  if (sortPath !== '_id') sort['_id'] = direction;
  return { filter, sort, skip: (request.page - 1) * request.limit, limit: request.limit };
}

export function toPaginator(request: Pick<PageRequest, 'page' | 'limit'>, totalItems: number): Paginator {
  return {
    currentPage: request.page,
    page: request.page,
    totalPages: Math.ceil(totalItems / request.limit),
    totalItems,
    limit: request.limit,
  };
}
