import type { PageQuery } from '@masthead/proto/common';
import { SortDirection as WireSort } from '@masthead/proto/common';
import { invalidFilter } from '../errors/index.js';
import { FIRST_PAGE, type PageRequest } from './parse.js';

/** Gateway → service: the parsed request travels as the common PageQuery message. */
export function toPageQuery(request: PageRequest): PageQuery {
  return {
    page: request.page,
    limit: request.limit,
    filterJson: JSON.stringify(request.filter),
    orderBy: request.orderBy,
    sort: request.sort === 'ASC' ? WireSort.SORT_DIRECTION_ASC : WireSort.SORT_DIRECTION_DESC,
  };
}

/** Service side: back to a PageRequest; a malformed message is the caller's bug, a 400. */
export function fromPageQuery(query: PageQuery | undefined): PageRequest {
  if (!query) return { ...FIRST_PAGE, filter: {}, orderBy: '', sort: 'DESC' };
  let filter: PageRequest['filter'] = {};
  try {
    filter = query.filterJson ? (JSON.parse(query.filterJson) as PageRequest['filter']) : {};
  } catch {
    throw invalidFilter();
  }
  return {
    page: Math.max(1, query.page || FIRST_PAGE.page),
    limit: Math.max(1, query.limit || FIRST_PAGE.limit),
    filter,
    orderBy: query.orderBy,
    sort: query.sort === WireSort.SORT_DIRECTION_ASC ? 'ASC' : 'DESC',
  };
}
