import qs from 'qs';
import { describe, expect, it } from 'vitest';
import { serviceErrorOf } from './service-error.js';
import { buildListQuery, parsePageRequest, prefixedFields, toPaginator, type ListSpec } from '../src/pagination/index.js';

/** Queries as the gateway's extended query parser sees them. */
const query = (text: string) => qs.parse(text) as Record<string, unknown>;

const plans: ListSpec = {
  fields: {
    'Plans.id': { path: '_id', type: 'number' },
    'Plans.title': { path: 'title', type: 'text' },
    active: { path: 'active', type: 'boolean' },
  },
  defaultOrder: { path: 'created_at' },
};

describe('parsePageRequest', () => {
  it('applies the documented defaults: page 1, limit 10, DESC, no order', () => {
    expect(parsePageRequest({})).toEqual({ page: 1, limit: 10, filter: {}, orderBy: '', sort: 'DESC' });
  });

  it('reads a bracket map filter', () => {
    const request = parsePageRequest(query('filter[Plans.title]=Dig&filter[Plans.id][]=3&filter[Plans.id][]=4'));
    expect(request.filter).toEqual({ 'Plans.title': 'Dig', 'Plans.id': ['3', '4'] });
  });

  it('reads a JSON string filter', () => {
    const request = parsePageRequest(query(`filter=${encodeURIComponent('{"Plans.id":[1,2],"Plans.title":"x"}')}`));
    expect(request.filter).toEqual({ 'Plans.id': [1, 2], 'Plans.title': 'x' });
  });

  it('lets order win over by', () => {
    expect(parsePageRequest(query('by=title&order=id')).orderBy).toBe('id');
    expect(parsePageRequest(query('by=title')).orderBy).toBe('title');
  });

  it('accepts sort in any case', () => {
    expect(parsePageRequest(query('sort=asc')).sort).toBe('ASC');
  });

  it('clamps a huge limit to the documented cap', () => {
    expect(parsePageRequest(query('limit=100000')).limit).toBe(1000);
  });

  it('refuses a page beyond what the internal contracts carry (int32), which failed as a 500 before', () => {
    expect(parsePageRequest(query('page=2147483647')).page).toBe(2147483647);
    const error = serviceErrorOf(() => parsePageRequest(query('page=2147483648')));
    expect({ status: error.status, fields: error.fields }).toEqual({ status: 409, fields: { page: 'page must be at most 2147483647' } });
  });

  it('names every bad parameter in one field-validation error', () => {
    const error = serviceErrorOf(() => parsePageRequest(query('page=0&limit=abc&sort=UP&filter=[1')));
    expect(error.status).toBe(409);
    expect(Object.keys(error.fields ?? {}).sort()).toEqual(['filter', 'limit', 'page', 'sort']);
  });

  it('refuses nested filter values and JSON arrays', () => {
    expect(serviceErrorOf(() => parsePageRequest(query('filter[a][b][c]=1'))).fields).toHaveProperty(['filter.a']);
    expect(serviceErrorOf(() => parsePageRequest(query('filter=[1,2]'))).fields).toHaveProperty('filter');
  });
});

describe('buildListQuery', () => {
  it('turns text into a case-insensitive substring match and numbers into scalar or $in', () => {
    const request = parsePageRequest(query('filter[Plans.title]=a.b&filter[Plans.id][]=3&filter[Plans.id][]=4'));
    const built = buildListQuery(request, plans, { resource_id: 7 });
    expect(built.filter).toEqual({ resource_id: 7, title: { $regex: 'a\\.b', $options: 'i' }, _id: { $in: [3, 4] } });
    expect(buildListQuery(parsePageRequest(query('filter[Plans.id]=5')), plans, {}).filter).toEqual({ _id: 5 });
  });

  it('sorts by the default order with _id as tie-breaker, and pages', () => {
    const built = buildListQuery(parsePageRequest(query('page=3&limit=5&sort=ASC')), plans, {});
    expect(built.sort).toEqual({ created_at: 1, _id: 1 });
    expect(built.skip).toBe(10);
    expect(built.limit).toBe(5);
  });

  it('refuses unknown filter fields, non-numeric numbers and unknown sort fields', () => {
    const error = serviceErrorOf(() =>
      buildListQuery(parsePageRequest(query('filter[secret]=1&filter[Plans.id]=x&order=nope')), plans, {}),
    );
    expect(Object.keys(error.fields ?? {}).sort()).toEqual(['filter.Plans.id', 'filter.secret', 'order']);
  });

  it('keeps the tenant scope even when a filter names the same field', () => {
    const spec: ListSpec = { fields: { resource: { path: 'resource_id', type: 'number' } }, defaultOrder: { path: '_id' } };
    const built = buildListQuery(parsePageRequest(query('filter[resource]=9')), spec, { resource_id: 1 });
    expect(built.filter['resource_id']).toBe(1);
  });
});

describe('toPaginator', () => {
  it('reports pages for the total', () => {
    expect(toPaginator({ page: 2, limit: 10 }, 21)).toEqual({ currentPage: 2, page: 2, totalPages: 3, totalItems: 21, limit: 10 });
    expect(toPaginator({ page: 1, limit: 10 }, 0).totalPages).toBe(0);
  });
});

describe('prefixedFields', () => {
  it('answers each field to its bare name and to the prefixed name, with one spec', () => {
    const fields = prefixedFields('Plans', { id: { path: '_id', type: 'number' }, title: { path: 'title', type: 'text' } });
    expect(fields).toEqual({
      id: { path: '_id', type: 'number' },
      'Plans.id': { path: '_id', type: 'number' },
      title: { path: 'title', type: 'text' },
      'Plans.title': { path: 'title', type: 'text' },
    });
    const spec: ListSpec = { fields, defaultOrder: { path: 'created_at' } };
    expect(buildListQuery(parsePageRequest(query('filter[Plans.id]=3')), spec, {}).filter).toEqual(
      buildListQuery(parsePageRequest(query('filter[id]=3')), spec, {}).filter,
    );
  });
});
