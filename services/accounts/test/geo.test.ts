import { createLogger } from '@masthead/core/logging';
import { startRecordingServer, type ProviderAnswer, type RecordedRequest, type RecordingServer } from '@masthead/service-testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { countryNameOf } from '../src/countries/country.source.js';
import { GeoLocator, normalizeIp } from '../src/geo/geo-locator.js';
import { UNKNOWN_LOCATION, type GeoLocation, type InstalledGeoDatabase } from '../src/geo/geo.types.js';
import { IpapiProvider } from '../src/geo/ipapi.provider.js';
import { MmdbGeoDatabase } from '../src/geo/mmdb.database.js';

const logger = createLogger({ name: 'geo-test', level: 'silent' });
const FROM_DATABASE: GeoLocation = { country: 'Database', countryCode: 'DB', state: 'State', city: 'City' };

/** The IP-location adapter against a local server answering like ipapi.co, and its fallback. */
describe('GeoLocator', () => {
  let answers: Map<string, ProviderAnswer>;
  let server: RecordingServer;
  const ipOf = (request: RecordedRequest) => decodeURIComponent(/^\/([^/]+)\/json\/$/.exec(request.path)?.[1] ?? '');
  const callsFor = (ip: string) => server.requests.filter((request) => ipOf(request) === ip).length;

  beforeAll(async () => {
    answers = new Map();
    server = await startRecordingServer(
      (request) => answers.get(ipOf(request)) ?? { body: { error: true, reason: 'Reserved IP Address' } },
    );
  });
  afterAll(() => server.close());

  const database = (): InstalledGeoDatabase & { locate: ReturnType<typeof vi.fn> } => ({
    locate: vi.fn(async () => FROM_DATABASE),
  });
  const locator = (options: { retryAfterMs?: number; timeoutMs?: number; apiKey?: string; provider?: boolean } = {}) => {
    const installed = database();
    const geo = new GeoLocator({
      provider:
        options.provider === false
          ? null
          : new IpapiProvider({ baseUrl: server.url, apiKey: options.apiKey, timeoutMs: options.timeoutMs ?? 1000 }),
      database: installed,
      cacheTtlMs: 60_000,
      retryAfterMs: options.retryAfterMs ?? 0,
      countryName: countryNameOf,
      logger,
    });
    return { geo, installed };
  };

  it('maps the provider answer, keeps state null (the external branch) and sends the key', async () => {
    answers.set('203.0.113.1', {
      body: { ip: '203.0.113.1', country_code: 'de', country_name: 'Germany', region: 'Bavaria', city: ' Munich ' },
    });
    const { geo, installed } = locator({ apiKey: 'k-123' });
    expect(await geo.locate('203.0.113.1')).toEqual({ country: 'Germany', countryCode: 'DE', state: null, city: 'Munich' });
    const request = server.requests.find((candidate) => ipOf(candidate) === '203.0.113.1')!;
    expect(request.method).toBe('GET');
    expect(request.query.get('key')).toBe('k-123');
    expect(request.headers['accept']).toBe('application/json');
    expect(installed.locate).not.toHaveBeenCalled();
  });

  it('names the country from the country list when the provider gives only a code', async () => {
    answers.set('203.0.113.2', { body: { country_code: 'NZ', city: null } });
    const { geo } = locator();
    expect(await geo.locate('203.0.113.2')).toEqual({ country: 'New Zealand', countryCode: 'NZ', state: null, city: null });
  });

  it('calls the provider once for repeated and concurrent lookups of one IP', async () => {
    answers.set('203.0.113.3', { body: { country_code: 'FR', country_name: 'France', city: 'Paris' }, delayMs: 50 });
    const { geo } = locator();
    const results = await Promise.all([geo.locate('203.0.113.3'), geo.locate('203.0.113.3'), geo.locate('::ffff:203.0.113.3')]);
    await geo.locate('203.0.113.3');
    expect(new Set(results.map((result) => result.countryCode))).toEqual(new Set(['FR']));
    expect(callsFor('203.0.113.3')).toBe(1);
  });

  let failures = 0;
  it.each([
    ['an error body', { body: { error: true, reason: 'RateLimited' } }],
    ['HTTP 500', { status: 500, body: {} }],
    ['HTTP 429', { status: 429, body: { error: true } }],
    ['a body that is no JSON', { body: '<html>down</html>' }],
    ['an answer without a country', { body: { ip: 'x', city: 'Nowhere' } }],
    ['a timeout', { body: { country_code: 'US' }, delayMs: 400 }],
  ] as Array<[string, ProviderAnswer]>)('falls back to the installed database on %s', async (_name, answer) => {
    const ip = `198.51.100.${++failures}`;
    answers.set(ip, answer);
    const { geo, installed } = locator({ timeoutMs: 150 });
    expect(await geo.locate(ip)).toEqual(FROM_DATABASE);
    expect(installed.locate).toHaveBeenCalledWith(ip);
    expect(callsFor(ip)).toBeGreaterThanOrEqual(1);
  });

  it('skips the provider for a while after a failure, but keeps serving cached answers', async () => {
    answers.set('203.0.113.4', { body: { country_code: 'SE', country_name: 'Sweden', city: 'Stockholm' } });
    answers.set('203.0.113.5', { status: 503, body: {} });
    answers.set('203.0.113.6', { body: { country_code: 'NO', country_name: 'Norway', city: 'Oslo' } });
    const { geo, installed } = locator({ retryAfterMs: 60_000 });
    expect((await geo.locate('203.0.113.4')).countryCode).toBe('SE');
    expect(await geo.locate('203.0.113.5')).toEqual(FROM_DATABASE);
    // Backing off: no call for a new IP, the cached one still answers from the provider's data.
    expect(await geo.locate('203.0.113.6')).toEqual(FROM_DATABASE);
    expect(callsFor('203.0.113.6')).toBe(0);
    expect((await geo.locate('203.0.113.4')).countryCode).toBe('SE');
    expect(callsFor('203.0.113.4')).toBe(1);
    expect(installed.locate).toHaveBeenCalledTimes(2);
  });

  it('uses the installed database alone when no provider is configured', async () => {
    const { geo, installed } = locator({ provider: false });
    const before = server.requests.length;
    expect(await geo.locate('203.0.113.1')).toEqual(FROM_DATABASE);
    expect(server.requests.length).toBe(before);
    expect(installed.locate).toHaveBeenCalledWith('203.0.113.1');
  });

  it('answers unknown for a text that is no IP, without any lookup', async () => {
    const { geo, installed } = locator();
    const before = server.requests.length;
    for (const text of ['not-an-ip', '', '999.1.1.1', '203.0.113.1/24', '../../etc'])
      expect(await geo.locate(text)).toEqual(UNKNOWN_LOCATION);
    expect(server.requests.length).toBe(before);
    expect(installed.locate).not.toHaveBeenCalled();
  });

  it('normalizes IPv4-mapped IPv6 addresses and surrounding spaces', () => {
    expect(normalizeIp('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(normalizeIp(' 2001:db8::1 ')).toBe('2001:db8::1');
    expect(normalizeIp('::ffff:abcd')).toBe('::ffff:abcd');
  });
});

/** The installed database: DB-IP's city lite edition at the version the lockfile pins. */
describe('MmdbGeoDatabase', () => {
  const installed = new MmdbGeoDatabase(countryNameOf, logger);

  it('locates IPv4 and IPv6 addresses at city level', async () => {
    expect(await installed.locate('8.8.8.8')).toEqual({
      country: 'United States',
      countryCode: 'US',
      state: 'California',
      city: 'Mountain View',
    });
    const v6 = await installed.locate('2a01:4f8::1');
    expect(v6.countryCode).toBe('DE');
    expect(v6.country).toBe('Germany');
  });

  it('answers unknown for private, loopback and malformed addresses', async () => {
    for (const ip of ['127.0.0.1', '10.0.0.1', '::1', 'nope']) expect(await installed.locate(ip)).toEqual(UNKNOWN_LOCATION);
  });

  it('answers unknown, not an error, when its files are missing', async () => {
    const broken = new MmdbGeoDatabase(countryNameOf, logger, '/nonexistent');
    expect(await broken.locate('8.8.8.8')).toEqual(UNKNOWN_LOCATION);
  });
});
