import { fieldError } from '../errors/index.js';

export type SortDirection = 'ASC' | 'DESC';
export type FilterValue = string | number | boolean | null | Array<string | number | boolean | null>;

/** Document 1 "Conventions", parsed once for every paginated list. */
export interface PageRequest {
  page: number;
  limit: number;
  filter: Record<string, FilterValue>;
  /** Empty when the caller named no field: the operation's default order applies. */
  orderBy: string;
  sort: SortDirection;
}

export const DEFAULT_LIMIT = 10;
/** The page a list request without `page` and `limit` asks for (document 1, Conventions). */
export const FIRST_PAGE: Readonly<Pick<PageRequest, 'page' | 'limit'>> = Object.freeze({ page: 1, limit: DEFAULT_LIMIT });
/**
 * The spec states no maximum. An unbounded page lets one request read a whole collection, so
 * larger values are clamped here (ADR 0006); the paginator reports the limit actually used.
 */
export const MAX_LIMIT = 1000;
/**
 * The largest page: the internal contracts carry it as an int32 (common/v1 PageQuery), and a
 * larger one failed to serialize in the gateway's client, a 500 the fuzzer found (issue 15).
 */
export const MAX_PAGE = 2 ** 31 - 1;

const isScalar = (value: unknown): value is string | number | boolean | null =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);

function parsePositiveInt(
  value: unknown,
  field: string,
  fallback: number,
  problems: Record<string, string>,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined || value === '') return fallback;
  const text = Array.isArray(value) ? value.at(-1) : value;
  const number = typeof text === 'number' ? text : typeof text === 'string' && /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(number) || number < 1) {
    problems[field] = `${field} must be a positive integer`;
    return fallback;
  }
  if (number > max) {
    problems[field] = `${field} must be at most ${max}`;
    return fallback;
  }
  return number;
}

/** `filter` arrives as a bracket map (`filter[title]=x`, parsed by the query parser) or as JSON. */
function parseFilter(raw: unknown, problems: Record<string, string>): Record<string, FilterValue> {
  if (raw === undefined || raw === '') return {};
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      problems['filter'] = 'filter must be a bracket map or a JSON object';
      return {};
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    problems['filter'] = 'filter must be a bracket map or a JSON object';
    return {};
  }
  const filter: Record<string, FilterValue> = {};
  for (const [field, condition] of Object.entries(value)) {
    if (isScalar(condition) || (Array.isArray(condition) && condition.every(isScalar))) {
      filter[field] = condition as FilterValue;
    } else {
      problems[`filter.${field}`] = 'a filter value must be a scalar or an array of scalars';
    }
  }
  return filter;
}

function parseSort(raw: unknown, problems: Record<string, string>): SortDirection {
  if (raw === undefined || raw === '') return 'DESC';
  const text = typeof raw === 'string' ? raw.trim().toUpperCase() : '';
  if (text === 'ASC' || text === 'DESC') return text;
  problems['sort'] = 'sort must be ASC or DESC';
  return 'DESC';
}

function parseOrderBy(query: Record<string, unknown>): string {
  // `order` wins over `by` (document 1, Conventions).
  for (const key of ['order', 'by']) {
    const value = query[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return '';
}

/** Parses a list request's query; a 409 field-validation error names every bad parameter. */
export function parsePageRequest(query: Record<string, unknown>): PageRequest {
  const problems: Record<string, string> = {};
  const page = parsePositiveInt(query['page'], 'page', FIRST_PAGE.page, problems, MAX_PAGE);
  const limit = Math.min(parsePositiveInt(query['limit'], 'limit', FIRST_PAGE.limit, problems), MAX_LIMIT);
  const filter = parseFilter(query['filter'], problems);
  const sort = parseSort(query['sort'], problems);
  if (Object.keys(problems).length > 0) throw fieldError(problems);
  return { page, limit, filter, orderBy: parseOrderBy(query), sort };
}
