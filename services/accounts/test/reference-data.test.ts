import { createLogger } from '@masthead/core/logging';
import { CurrencySource, LocalizationServiceService } from '@masthead/proto/accounts/localization';
import { startServiceHarness, type ServiceHarness } from '@masthead/service-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAccountsConfig, startAccountsService } from '../src/app.js';
import { mergeStates } from '../src/countries/country.merge.js';
import { CountryRepository } from '../src/countries/country.repository.js';
import { seedCountries } from '../src/countries/country.seeder.js';
import { countryIdOf, loadCountrySource, type SourceCountry } from '../src/countries/country.source.js';
import { LanguageRepository } from '../src/languages/language.repository.js';
import { seedLanguages } from '../src/languages/language.seeder.js';
import { languageIdOf, loadLanguageSource } from '../src/languages/language.source.js';

const logger = createLogger({ name: 'reference-data-test', level: 'silent' });
const US = countryIdOf('US');

describe('stable IDs', () => {
  it('derives country and language IDs from their codes', () => {
    expect([countryIdOf('AA'), countryIdOf('AF'), countryIdOf('US'), countryIdOf('ZZ')]).toEqual([1, 6, 539, 676]);
    expect([languageIdOf('aa'), languageIdOf('en'), languageIdOf('zu')]).toEqual([1, 118, 671]);
    expect(() => countryIdOf('U1')).toThrow();
    expect(() => languageIdOf('eng')).toThrow();
    const ids = loadCountrySource().map((country) => countryIdOf(country.code));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps a state’s ID across renames and code changes, and never reuses a dropped one', () => {
    const stored = [
      { id: US * 1000 + 1, code: 'AL', title: 'Alabama' },
      { id: US * 1000 + 2, code: 'AK', title: 'Alaska' },
      { id: US * 1000 + 3, code: '', title: 'Guam' },
    ];
    const merged = mergeStates(US, stored, [
      { code: 'AK', title: 'Alaska State' },
      { code: 'GU', title: 'guam' },
      { code: 'ZZ', title: 'New Territory' },
    ]);
    expect(merged).toEqual([
      { id: US * 1000 + 2, code: 'AK', title: 'Alaska State' },
      { id: US * 1000 + 3, code: 'GU', title: 'guam' },
      { id: US * 1000 + 4, code: 'ZZ', title: 'New Territory' },
    ]);
    // Alabama comes back: a new number, not its old one.
    expect(mergeStates(US, merged, [{ code: 'AL', title: 'Alabama' }])).toEqual([{ id: US * 1000 + 5, code: 'AL', title: 'Alabama' }]);
  });

  it('reuses the lowest free number only once a country’s range is exhausted', () => {
    const stored = [{ id: US * 1000 + 999, code: 'X', title: 'Last' }];
    expect(
      mergeStates(US, stored, [
        { code: 'X', title: 'Last' },
        { code: 'Y', title: 'New' },
      ]),
    ).toEqual([
      { id: US * 1000 + 999, code: 'X', title: 'Last' },
      { id: US * 1000 + 1, code: 'Y', title: 'New' },
    ]);
  });
});

describe('accounts reference data', () => {
  let harness: ServiceHarness<typeof LocalizationServiceService>;
  let countries: CountryRepository;
  let languages: LanguageRepository;

  beforeAll(async () => {
    harness = await startServiceHarness({
      service: 'accounts',
      definition: LocalizationServiceService,
      // No GEOINFO_URL: the installed database answers every lookup.
      start: (env) => startAccountsService(loadAccountsConfig({ ...env, LOCALIZATION_CACHE_TTL_MS: '0' })),
    });
    countries = new CountryRepository(harness.db);
    languages = new LanguageRepository(harness.db);
  });
  afterAll(() => harness?.stop());

  it('seeds every packaged country and language at boot, and a second seed writes nothing', async () => {
    expect(await harness.db.collection('countries').countDocuments()).toBe(loadCountrySource().length);
    expect(await harness.db.collection('languages').countDocuments()).toBe(loadLanguageSource().length);
    expect(await seedCountries(countries, logger)).toEqual({ inserted: 0, updated: 0, deleted: 0 });
    expect(await seedLanguages(languages, logger)).toEqual({ inserted: 0, updated: 0 });
  });

  it('keeps the operator’s sort and flags across seeds, and follows package changes with stable IDs', async () => {
    await harness.db.collection('countries').updateOne({ _id: US } as never, { $set: { sort: 7 } });
    await harness.db.collection('languages').updateOne({ _id: languageIdOf('de') } as never, { $set: { active: false, sort: 3 } });
    const source = loadCountrySource();
    const upgraded: SourceCountry[] = source
      .filter((country) => country.code !== 'AX')
      .map((country) =>
        country.code === 'US'
          ? { ...country, title: 'United States of America', states: [...country.states.slice(1), { code: 'NT', title: 'New Territory' }] }
          : country,
      );
    expect(await seedCountries(countries, logger, upgraded)).toEqual({ inserted: 0, updated: 1, deleted: 1 });
    const stored = await countries.all();
    expect(stored.find((country) => country.code === 'AX')).toBeUndefined();
    const us = stored.find((country) => country._id === US)!;
    expect(us.title).toBe('United States of America');
    expect(us.sort).toBe(7);
    expect(us.states[0]).toEqual({ id: US * 1000 + 2, code: 'AK', title: 'Alaska' });
    const packaged = source.find((country) => country.code === 'US')!.states.length;
    expect(us.states.at(-1)).toEqual({ id: US * 1000 + packaged + 1, code: 'NT', title: 'New Territory' });

    // Back to the package: the dropped country returns with its derived ID, the rest as before.
    expect(await seedCountries(countries, logger)).toEqual({ inserted: 1, updated: 1, deleted: 0 });
    expect(await seedLanguages(languages, logger)).toEqual({ inserted: 0, updated: 0 });
    const german = await languages.findById(languageIdOf('de'));
    expect(german).toEqual(expect.objectContaining({ slug: 'de', active: false, sort: 3 }));
    const restored = (await countries.all()).find((country) => country._id === US)!;
    expect(restored.sort).toBe(7);
    // Alabama's old number is not reused: it comes back after New Territory's.
    expect(restored.states[0]).toEqual({ id: US * 1000 + packaged + 2, code: 'AL', title: 'Alabama' });
    expect(restored.states[1]).toEqual({ id: US * 1000 + 2, code: 'AK', title: 'Alaska' });
    await harness.db.collection('countries').updateOne({ _id: US } as never, { $set: { sort: 0 } });
  });

  it('two replicas seeding an empty database together agree', async () => {
    await harness.db.collection('countries').deleteMany({});
    await harness.db.collection('languages').deleteMany({});
    await Promise.all([
      seedCountries(countries, logger),
      seedCountries(new CountryRepository(harness.db), logger),
      seedLanguages(languages, logger),
      seedLanguages(new LanguageRepository(harness.db), logger),
    ]);
    const stored = await countries.all();
    expect(stored).toHaveLength(loadCountrySource().length);
    expect(stored.find((country) => country._id === US)?.states[0]).toEqual({ id: US * 1000 + 1, code: 'AL', title: 'Alabama' });
    expect(await harness.db.collection('languages').countDocuments()).toBe(loadLanguageSource().length);
  });

  it('GetGeoInfo answers from the installed database when no provider is configured', async () => {
    expect(await harness.client.getGeoInfo({ ip: '8.8.8.8' })).toEqual({
      ip: '8.8.8.8',
      country: 'United States',
      countryCode: 'US',
      state: 'California',
      city: 'Mountain View',
    });
    expect(await harness.client.getGeoInfo({ ip: '::ffff:127.0.0.1' })).toEqual({ ip: '127.0.0.1' });
  });

  it('ListCountries selects the located country, US when unknown; grouping needs a resource', async () => {
    const selected = async (ip: string, real = false) => {
      const list = await harness.client.listCountries({ resourceId: 0, real, ip, knownVersion: '' });
      expect(list.grouped).toBe(false);
      return list.items.filter((item) => item.selected).map((item) => item.code);
    };
    expect(await selected('2a01:4f8::1')).toEqual(['DE']);
    expect(await selected('127.0.0.1')).toEqual(['US']);
    expect(await selected('')).toEqual(['US']);
    expect(await selected('2a01:4f8::1', true)).toEqual(['DE']);
  });

  it('ListCountries leaves the items out for a caller holding the current version, and names the selected code', async () => {
    const full = await harness.client.listCountries({ resourceId: 0, real: false, ip: '2a01:4f8::1', knownVersion: '' });
    expect(full).toMatchObject({ grouped: false, unchanged: false, selectedCode: 'DE', version: expect.stringMatching(/^[\w-]{22}$/) });
    expect(full.items).toHaveLength(loadCountrySource().length);
    expect(await harness.client.listCountries({ resourceId: 0, real: false, ip: '127.0.0.1', knownVersion: full.version })).toEqual({
      grouped: false,
      items: [],
      version: full.version,
      unchanged: true,
      selectedCode: 'US',
    });
    const stale = await harness.client.listCountries({ resourceId: 0, real: false, ip: '127.0.0.1', knownVersion: 'older' });
    expect(stale).toMatchObject({
      unchanged: false,
      version: full.version,
      items: full.items.map((item) => ({ ...item, selected: item.code === 'US' })),
    });
  });

  it('ListCurrencies reports nothing configured without a default list', async () => {
    expect(await harness.client.listCurrencies({ resourceId: 0 })).toEqual({
      items: [],
      source: CurrencySource.CURRENCY_SOURCE_UNSPECIFIED,
    });
  });

  it('GetLanguage answers NOT_FOUND language_not_found for an unknown ID', async () => {
    await expect(harness.client.getLanguage({ id: 999 })).rejects.toMatchObject({ status: 404, code: 'language_not_found' });
    await expect(harness.client.getLanguage({ id: 0 })).rejects.toMatchObject({ status: 404, code: 'language_not_found' });
  });
});
