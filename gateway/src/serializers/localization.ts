import type { Country, Currency, GeoInfo, Language } from '@masthead/proto/accounts/localization';

/** Country record of GET /countries, country branch (document 2, "Country record"). */
export function serializeCountry(country: Country): Record<string, unknown> {
  return {
    id: country.id,
    code: country.code ?? null,
    title: country.title,
    sort: country.sort,
    selected: country.selected,
    states: country.states.map((state) => ({
      id: state.id,
      code: state.code,
      title: state.title,
      // `county_id` (sic) is the state's country ID: the spec spells it so; kept on purpose.
      county_id: state.countryId,
    })),
  };
}

/** Grouped branch item: only `code`, always null, and `title` (document 2, "Country record"). */
export const serializeGroupedCountry = (country: Country): Record<string, unknown> => ({ code: null, title: country.title });

export const serializeGeoInfo = (info: GeoInfo): Record<string, unknown> => ({
  ip: info.ip,
  country: info.country ?? null,
  country_code: info.countryCode ?? null,
  state: info.state ?? null,
  city: info.city ?? null,
});

/** GET /currency items: the label only (no conversion, symbol or precision). */
export const serializeCurrency = (currency: Currency): Record<string, unknown> => ({ title: currency.title });

/** GET /admin/currency items: the label and, for ISO 4217 codes, what the code stands for. */
export const serializeAdminCurrency = (currency: Currency): Record<string, unknown> => ({
  title: currency.title,
  code: currency.code ?? null,
  name: currency.name ?? null,
  digits: currency.digits ?? null,
});

/** Language record (document 2). */
export const serializeLanguage = (language: Language): Record<string, unknown> => ({
  id: language.id,
  slug: language.slug ?? null,
  title: language.title ?? null,
  description: language.description ?? null,
  is_default: language.isDefault,
  active: language.active,
  sort: language.sort,
  created_at: language.createdAt,
  updated_at: language.updatedAt,
});
