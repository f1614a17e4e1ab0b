import type { PageQuery, Paginator as WirePaginator } from '@masthead/proto/common';
import { SortDirection as WireSort } from '@masthead/proto/common';
import { invalidFilter } from '../errors/index.js';
import type { PageRequest } from './parse.js';
import type { Paginator } from './query.js';

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
  if (!query) return { page: 1, limit: 10, filter: {}, orderBy: '', sort: 'DESC' };
  let filter: PageRequest['filter'] = {};
  try {
    filter = query.filterJson ? (JSON.parse(query.filterJson) as PageRequest['filter']) : {};
  } catch {
    throw invalidFilter();
  }
  return {
    page: Math.max(1, query.page || 1),
    limit: Math.max(1, query.limit || 10),
    filter,
    orderBy: query.orderBy,
    sort: query.sort === WireSort.SORT_DIRECTION_ASC ? 'ASC' : 'DESC',
  };
}

/** Service → gateway: toPaginator's numbers in the common message. */
export const toWirePaginator = (paginator: Paginator): WirePaginator => ({
  currentPage: paginator.current_page,
  page: paginator.page,
  totalPages: paginator.total_pages,
  totalItems: paginator.total_items,
  limit: paginator.limit,
});
