import { httpError } from '@masthead/core/errors';
import { parsePageRequest, toPageQuery } from '@masthead/core/pagination';
import { CurrencySource } from '@masthead/proto/accounts';
import type { Request } from 'express';
import { jsonParam, localizationIp, queryParam, requestParam, resolveRequestIp } from '../http/request-ip.js';
import { serializePaginator } from '../serializers/catalog.js';
import {
  serializeAdminCurrency,
  serializeCountry,
  serializeCurrency,
  serializeGeoInfo,
  serializeGroupedCountry,
  serializeLanguage,
} from '../serializers/localization.js';
import type { RouteHandler } from './types.js';

const PATH_ID = /^\d{1,9}$/;

/**
 * `real` (document 2, B: a boolean filter, default false): the query text "true" or "1" (any
 * case), or a JSON body `real: true`; only a JSON boolean counts in the body.
 */
function realFlag(req: Request): boolean {
  const query = queryParam(req, 'real');
  if (query !== undefined) return ['true', '1'].includes(query.trim().toLowerCase());
  return jsonParam(req, 'real') === true;
}

/**
 * GET /countries and GET /admin/countries (document 2, B): country records with `selected` from
 * the request IP, or the grouped users' countries with a resource and `real` (or the resource
 * setting `use_group_users_country`). An admin context may name the IP with `ip`.
 */
export const listCountries: RouteHandler = async (context, req, { accounts }) => {
  const result = await accounts.listCountries(
    { resourceId: context.resource?.id ?? 0, real: realFlag(req), ip: localizationIp(req, context) },
    { idempotent: true },
  );
  return { body: { items: result.items.map(result.grouped ? serializeGroupedCountry : serializeCountry) } };
};

/** GET /geoinfo: `ip` (no format validation; falsey → the request IP). No handler error code. */
export const getGeoInfo: RouteHandler = async (context, req, { accounts }) => {
  const asked = requestParam(req, 'ip').trim();
  // "0" is falsey where the spec's behaviour comes from, and is no address either.
  const ip = asked && asked !== '0' ? asked : resolveRequestIp(req);
  const info = await accounts.getGeoInfo({ ip }, { idempotent: true });
  return { body: { data: serializeGeoInfo(info) } };
};

/** GET /currency: `{items: [{title}]}` in configured order; `items` omitted when none. */
export const listCurrencies: RouteHandler = async (context, _req, { accounts }) => {
  const result = await accounts.listCurrencies({ resourceId: context.resource?.id ?? 0 }, { idempotent: true });
  return { body: result.items.length > 0 ? { items: result.items.map(serializeCurrency) } : {} };
};

const SOURCE_NAMES: Partial<Record<CurrencySource, string>> = {
  [CurrencySource.CURRENCY_SOURCE_RESOURCE]: 'resource',
  [CurrencySource.CURRENCY_SOURCE_DEPLOYMENT]: 'deployment',
};

/**
 * GET /admin/currency (named in document 2, B; shape ours, ADR 0033): the public list's items
 * with their ISO 4217 code, name and minor-unit digits (null where the label is no ISO code),
 * and where the list comes from.
 */
export const adminListCurrencies: RouteHandler = async (context, _req, { accounts }) => {
  const result = await accounts.listCurrencies({ resourceId: context.resource!.id }, { idempotent: true });
  const body: Record<string, unknown> = {};
  if (result.items.length > 0) body['items'] = result.items.map(serializeAdminCurrency);
  body['source'] = SOURCE_NAMES[result.source] ?? null;
  return { body };
};

/** GET /languages: paginated, every language (inactive and non-default included). */
export const listLanguages: RouteHandler = async (context, req, { accounts }) => {
  const page = parsePageRequest(req.query as Record<string, unknown>);
  const result = await accounts.listLanguages({ query: toPageQuery(page) }, { idempotent: true });
  return { body: { items: result.items.map(serializeLanguage), paginator: serializePaginator(result.paginator) } };
};

/** GET /languages/{id}: the language record; 404 language_not_found otherwise. */
export const getLanguage: RouteHandler = async (context, req, { accounts }) => {
  const id = String(req.params['id'] ?? '');
  if (!PATH_ID.test(id) || Number(id) === 0) throw httpError(404, 'language_not_found', 'Language not found');
  const language = await accounts.getLanguage({ id: Number(id) }, { idempotent: true });
  return { body: serializeLanguage(language) };
};
