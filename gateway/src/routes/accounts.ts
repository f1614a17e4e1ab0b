import * as accountRequests from '../handlers/account-requests.js';
import * as accounts from '../handlers/accounts.js';
import * as localization from '../handlers/localization.js';
import { route, type RouteDefinition } from './define.js';

/** Accounts: resources, localization reference data, account requests: the OPERATIONS.md rows accounts owns, by method then path. */
export const ACCOUNTS_ROUTES: readonly RouteDefinition[] = [
  route({
    method: 'GET',
    path: '/admin/countries',
    service: 'accounts',
    access: 'admin',
    request: localization.countriesRequest,
    handler: localization.listCountries,
  }),
  route({ method: 'GET', path: '/admin/currency', service: 'accounts', access: 'admin', handler: localization.adminListCurrencies }),
  route({
    method: 'GET',
    path: '/countries',
    service: 'accounts',
    access: 'guest',
    request: localization.countriesRequest,
    handler: localization.listCountries,
  }),
  route({ method: 'GET', path: '/currency', service: 'accounts', access: 'guest', handler: localization.listCurrencies }),
  route({
    method: 'GET',
    path: '/geoinfo',
    service: 'accounts',
    access: 'guest',
    request: localization.geoInfoRequest,
    handler: localization.getGeoInfo,
  }),
  route({
    method: 'GET',
    path: '/languages',
    service: 'accounts',
    access: 'guest',
    request: localization.languagesRequest,
    handler: localization.listLanguages,
  }),
  route({
    method: 'GET',
    path: '/languages/{id}',
    service: 'accounts',
    access: 'guest',
    request: localization.languageRequest,
    handler: localization.getLanguage,
  }),
  route({ method: 'GET', path: '/resource', service: 'accounts', access: 'memberAnySession', handler: accounts.getResource }),
  route({
    method: 'POST',
    path: '/account-requests',
    service: 'accounts',
    access: 'external',
    request: accountRequests.accountRequestRequest,
    handler: accountRequests.createAccountRequest,
  }),
];
