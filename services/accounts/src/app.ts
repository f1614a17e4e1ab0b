import { createClient } from '@masthead/core/clients';
import { AccountRequestServiceService } from '@masthead/proto/accounts/account_requests';
import { AccountRequestRepository } from './account-requests/account-request.repository.js';
import { AccountRequestService } from './account-requests/account-request.service.js';
import { accountRequestHandlers } from './grpc/account-requests.handlers.js';
import type { Logger } from '@masthead/core/logging';
import { openServiceRuntime, serveRuntime, type RunningService } from '@masthead/core/service';
import { AccountsServiceService } from '@masthead/proto/accounts';
import { LocalizationServiceService } from '@masthead/proto/accounts/localization';
import { ServiceAccountsServiceService } from '@masthead/proto/accounts/service_accounts';
import type { AccountsConfig } from './config.js';
import { CountryRepository } from './countries/country.repository.js';
import { seedCountries } from './countries/country.seeder.js';
import { CountryService } from './countries/country.service.js';
import { countryNameOf } from './countries/country.source.js';
import { CurrencyService } from './currencies/currency.service.js';
import { GeoLocator } from './geo/geo-locator.js';
import { IpapiProvider } from './geo/ipapi.provider.js';
import { MmdbGeoDatabase } from './geo/mmdb.database.js';
import { accountsHandlers } from './grpc/accounts.handlers.js';
import { localizationHandlers } from './grpc/localization.handlers.js';
import { serviceAccountsHandlers } from './grpc/service-accounts.handlers.js';
import { LanguageRepository } from './languages/language.repository.js';
import { seedLanguages } from './languages/language.seeder.js';
import { LanguageService } from './languages/language.service.js';
import { PartnerRepository } from './partners/partner.repository.js';
import { ResourceRepository } from './resources/resource.repository.js';
import { ResourceSettingsCache } from './resources/resource-settings.cache.js';
import { ResourceService } from './resources/resource.service.js';
import { identityServiceAccountUsers } from './service-accounts/service-account-users.js';
import { ServiceAccountRepository } from './service-accounts/service-account.repository.js';
import { ServiceAccountService } from './service-accounts/service-account.service.js';

export type { AccountsConfig } from './config.js';
export { accountsEnv, loadAccountsConfig } from './config.js';

/** Composition root: config → connections → repositories → domain → gRPC handlers. */
export async function startAccountsService(config: AccountsConfig, logger?: Logger): Promise<RunningService> {
  const runtime = await openServiceRuntime('accounts', config, logger);
  const identity = createClient('identity', { identity: config.IDENTITY_ADDR }, { defaultDeadlineMs: config.GRPC_DEADLINE_MS });
  const partners = new PartnerRepository(runtime.db);
  const resources = new ResourceService({ resources: new ResourceRepository(runtime.db), partners, events: runtime.events });
  const serviceAccounts = new ServiceAccountService({
    accounts: new ServiceAccountRepository(runtime.db),
    resources,
    users: identityServiceAccountUsers(identity),
    events: runtime.events,
  });
  const countryRows = new CountryRepository(runtime.db);
  const languageRows = new LanguageRepository(runtime.db);
  const accountRequestRows = new AccountRequestRepository(runtime.db);
  await Promise.all([
    partners.ready(),
    resources.ready(),
    serviceAccounts.ready(),
    countryRows.ready(),
    languageRows.ready(),
    accountRequestRows.ready(),
  ]);
  const accountRequests = new AccountRequestService({
    requests: accountRequestRows,
    events: runtime.events,
    logger: runtime.logger,
    resourceId: config.ACCOUNT_REQUEST_RESOURCE_ID,
  });
  // Reference data from the pinned packages, loaded idempotently before the first call.
  await Promise.all([seedCountries(countryRows, runtime.logger), seedLanguages(languageRows, runtime.logger)]);

  const geo = new GeoLocator({
    provider: config.GEOINFO_URL
      ? new IpapiProvider({ baseUrl: config.GEOINFO_URL, apiKey: config.GEOINFO_API_KEY, timeoutMs: config.GEOINFO_TIMEOUT_MS })
      : null,
    database: new MmdbGeoDatabase(countryNameOf, runtime.logger),
    cacheTtlMs: config.GEOINFO_CACHE_TTL_MS,
    retryAfterMs: config.GEOINFO_RETRY_AFTER_MS,
    countryName: countryNameOf,
    logger: runtime.logger,
  });
  const settingsCache = new ResourceSettingsCache({ resources, ttlMs: config.LOCALIZATION_CACHE_TTL_MS });
  settingsCache.listen(runtime.nats, runtime.logger);
  const resourceSettings = (resourceId: number) => settingsCache.get(resourceId);
  const localization = {
    countries: new CountryService({
      countries: countryRows,
      resourceSettings,
      userCountries: () => identity.listUserCountries({}, { idempotent: true }),
      countryCodeOf: async (ip: string) => (await geo.locate(ip)).countryCode,
      cacheTtlMs: config.LOCALIZATION_CACHE_TTL_MS,
    }),
    currencies: new CurrencyService({ resourceSettings, defaults: config.DEFAULT_CURRENCIES }),
    languages: new LanguageService({ languages: languageRows, cacheTtlMs: config.LOCALIZATION_CACHE_TTL_MS }),
    geo,
  };
  return serveRuntime(
    runtime,
    config.GRPC_LISTEN,
    [
      {
        name: 'masthead.accounts.v1.AccountsService',
        definition: AccountsServiceService,
        implementation: accountsHandlers({ resources, partners }),
      },
      {
        name: 'masthead.accounts.v1.ServiceAccountsService',
        definition: ServiceAccountsServiceService,
        implementation: serviceAccountsHandlers(serviceAccounts),
      },
      {
        name: 'masthead.accounts.v1.LocalizationService',
        definition: LocalizationServiceService,
        implementation: localizationHandlers(localization),
      },
      {
        name: 'masthead.accounts.v1.AccountRequestService',
        definition: AccountRequestServiceService,
        implementation: accountRequestHandlers(accountRequests),
      },
    ],
    async () => identity.close(),
  );
}
