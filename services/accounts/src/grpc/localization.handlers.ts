import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery } from '@masthead/core/pagination';
import { CurrencySource, type Language, type LocalizationServiceService } from '@masthead/proto/accounts/localization';
import type { CountryService } from '../countries/country.service.js';
import type { CurrencyService } from '../currencies/currency.service.js';
import type { GeoLocator } from '../geo/geo-locator.js';
import { normalizeIp } from '../geo/geo-locator.js';
import type { LanguageRecord } from '../languages/language.schema.js';
import type { LanguageService } from '../languages/language.service.js';

export interface LocalizationDeps {
  countries: CountryService;
  currencies: CurrencyService;
  languages: LanguageService;
  geo: GeoLocator;
}

const toLanguage = (record: LanguageRecord): Language => ({
  id: record._id,
  slug: record.slug,
  title: record.title,
  description: record.description ?? undefined,
  isDefault: record.is_default,
  active: record.active,
  sort: record.sort,
  createdAt: record.created_at.toISOString(),
  updatedAt: record.updated_at.toISOString(),
});

const SOURCES = { resource: CurrencySource.CURRENCY_SOURCE_RESOURCE, deployment: CurrencySource.CURRENCY_SOURCE_DEPLOYMENT } as const;

/** The localization reads (document 2, section B). */
export function localizationHandlers({
  countries,
  currencies,
  languages,
  geo,
}: LocalizationDeps): AsyncImplementation<typeof LocalizationServiceService> {
  return {
    listCountries: async ({ resourceId, real, ip, knownVersion }) => {
      const list = await countries.list({ resourceId, real, ip, knownVersion });
      if (list.grouped)
        return {
          grouped: true,
          items: list.titles.map((title) => ({ id: 0, title, sort: 0, selected: false, states: [] })),
          version: '',
          unchanged: false,
          selectedCode: '',
        };
      return {
        grouped: false,
        items: list.items ?? [],
        version: list.version,
        unchanged: list.items === null,
        selectedCode: list.selectedCode,
      };
    },
    getGeoInfo: async ({ ip }) => {
      const found = await geo.locate(ip);
      return {
        ip: normalizeIp(ip),
        country: found.country ?? undefined,
        countryCode: found.countryCode ?? undefined,
        state: found.state ?? undefined,
        city: found.city ?? undefined,
      };
    },
    listCurrencies: async ({ resourceId }) => {
      const list = await currencies.list(resourceId);
      return {
        items: list.items.map((item) => ({
          title: item.title,
          code: item.code ?? undefined,
          name: item.name ?? undefined,
          digits: item.digits ?? undefined,
        })),
        source: list.source ? SOURCES[list.source] : CurrencySource.CURRENCY_SOURCE_UNSPECIFIED,
      };
    },
    listLanguages: async ({ query }) => {
      const page = await languages.list(fromPageQuery(query));
      return { items: page.items.map(toLanguage), paginator: page.paginator };
    },
    getLanguage: async ({ id }) => toLanguage(await languages.get(id)),
  };
}
