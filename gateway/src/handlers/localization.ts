import { languageNotFound } from '@masthead/core/errors';
import { parsePageRequest, toPageQuery } from '@masthead/core/pagination';
import { CurrencySource } from '@masthead/proto/accounts/localization';
import { z } from 'zod';
import { isAdminRole } from '../auth/roles.js';
import { resolveRequestIp } from '../http/request-ip.js';
import { fromParams, lastQueryValue, parsedWith, pathId, queryOrJsonText, rawRequest, type RawRequest } from '../http/request.js';
import type { Handler } from '../routes/define.js';
import { serializePaginator } from '../serializers/catalog.js';
import { CountryListJson } from '../serializers/country-list.js';
import {
  serializeAdminCurrency,
  serializeCurrency,
  serializeGeoInfo,
  serializeGroupedCountry,
  serializeLanguage,
} from '../serializers/localization.js';

/**
 * `real` (document 2, B: a boolean filter, default false): the query text "true" or "1" (any
 * case), or a JSON body `real: true`; only a JSON boolean counts in the body.
 */
const realFlag = (raw: RawRequest): boolean => {
  const query = lastQueryValue(raw, 'real');
  if (query !== undefined) return ['true', '1'].includes(query.trim().toLowerCase());
  return raw.json?.['real'] === true;
};

/** GET /countries and GET /admin/countries: `real`, and the `ip` an admin context may name. */
export const countriesRequest = rawRequest.transform((raw) => ({ real: realFlag(raw), ip: queryOrJsonText(raw, 'ip').trim() }));

/** The country records as this gateway last serialized them (content-versioned by accounts). */
const countryLists = new CountryListJson();

/**
 * GET /countries and GET /admin/countries (document 2, B): country records with `selected` from
 * the request IP, or the grouped users' countries with a resource and `real` (or the resource
 * setting `use_group_users_country`). An admin context may name the IP with `ip`.
 */
export const listCountries: Handler<'guest' | 'admin', z.output<typeof countriesRequest>> = async (
  context,
  input,
  { localization },
  req,
) => {
  // The request IP unless an admin context (admin, partner, root) names another one.
  const ip = (isAdminRole(context.caller.role) ? input.ip : '') || resolveRequestIp(req);
  const ask = (knownVersion: string) =>
    localization.listCountries({ resourceId: context.resource?.id ?? 0, real: input.real, ip, knownVersion }, { idempotent: true });
  const result = await ask(countryLists.knownVersion());
  if (result.grouped) return { body: { items: result.items.map(serializeGroupedCountry) } };
  return { json: countryLists.bodyOf(result) ?? countryLists.bodyOf(await ask(''))! };
};

export const geoInfoRequest = rawRequest.transform((raw) => ({ ip: queryOrJsonText(raw, 'ip').trim() }));

/** GET /geoinfo: `ip` (no format validation; falsey → the request IP). No handler error code. */
export const getGeoInfo: Handler<'guest', z.output<typeof geoInfoRequest>> = async (context, { ip: asked }, { localization }, req) => {
  // "0" is falsey where the spec's behaviour comes from, and is no address either.
  const ip = asked && asked !== '0' ? asked : resolveRequestIp(req);
  const info = await localization.getGeoInfo({ ip }, { idempotent: true });
  return { body: { data: serializeGeoInfo(info) } };
};

/** GET /currency: `{items: [{title}]}` in configured order; `items` omitted when none. */
export const listCurrencies: Handler<'guest'> = async (context, _input, { localization }) => {
  const result = await localization.listCurrencies({ resourceId: context.resource?.id ?? 0 }, { idempotent: true });
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
export const adminListCurrencies: Handler<'admin'> = async (context, _input, { localization }) => {
  const result = await localization.listCurrencies({ resourceId: context.resource.id }, { idempotent: true });
  const body: Record<string, unknown> = {};
  if (result.items.length > 0) body['items'] = result.items.map(serializeAdminCurrency);
  body['source'] = SOURCE_NAMES[result.source] ?? null;
  return { body };
};

/**
 * `page` of GET /languages is "cast to integer" (document 2, B): a decimal such as 2.5 is page 2,
 * not a 409 (ADR 0105). Other text is left to the shared page parser, which refuses it.
 */
const castToInteger = (value: unknown): unknown => {
  const last = Array.isArray(value) ? (value.at(-1) as unknown) : value;
  return typeof last === 'string' && /^\s*\d+\.\d*\s*$/.test(last) ? String(Math.trunc(Number(last))) : value;
};

export const languagesRequest = z
  .object({ query: parsedWith((query) => parsePageRequest({ ...query, page: castToInteger(query['page']) })) })
  .transform(({ query }) => query);

/** GET /languages: paginated, every language (inactive and non-default included). */
export const listLanguages: Handler<'guest', z.output<typeof languagesRequest>> = async (context, page, { localization }) => {
  const result = await localization.listLanguages({ query: toPageQuery(page) }, { idempotent: true });
  return { body: { items: result.items.map(serializeLanguage), paginator: serializePaginator(result.paginator) } };
};

export const languageRequest = fromParams({ id: pathId(languageNotFound, { zero: false }) });

/** GET /languages/{id}: the language record; 404 language_not_found otherwise. */
export const getLanguage: Handler<'guest', z.output<typeof languageRequest>> = async (context, { id }, { localization }) => {
  const language = await localization.getLanguage({ id }, { idempotent: true });
  return { body: serializeLanguage(language) };
};
