import { request as httpRequest } from 'node:http';
import { startRecordingServer, type RecordedRequest } from '@masthead/service-testkit';
import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyIsoDate, anyRequestId, useStack } from './support.js';

/**
 * Localization reads (document 2, section B) through the real gateway and services, with the
 * external IP-location provider played by a local HTTP server that answers like ipapi.co.
 */
const LOCATIONS: Record<string, Record<string, unknown>> = {
  '203.0.113.7': { country_code: 'DE', country_name: 'Germany', region: 'Bavaria', city: 'Munich' },
  '203.0.113.8': { country_code: 'FR', country_name: 'France', region: 'Île-de-France', city: 'Paris' },
  '203.0.113.9': { country_code: 'GB', country_name: 'United Kingdom', region: 'England', city: 'London' },
  // No country name and an empty city: the name comes from the country list, the city is unknown.
  '203.0.113.10': { country_code: 'ca', region: 'Ontario', city: '' },
  '203.0.113.11': { country_code: 'JP', country_name: 'Japan', region: 'Tokyo', city: 'Tokyo' },
  '2001:db8::7': { country_code: 'NL', country_name: 'Netherlands', region: 'Utrecht', city: 'Woerden' },
};
/** IPs the provider fails for: an HTTP 500 and a non-JSON answer. */
const BROKEN: Record<string, { status: number; body: string }> = {
  '8.8.8.8': { status: 500, body: '{"error": true, "reason": "upstream"}' },
  '1.1.1.1': { status: 200, body: '<html>rate limited</html>' },
};

const provider = await startRecordingServer((request: RecordedRequest) => {
  const ip = decodeURIComponent(/^\/([^/]+)\/json\/$/.exec(request.path)?.[1] ?? '');
  const broken = BROKEN[ip];
  if (broken) return broken;
  const location = LOCATIONS[ip];
  // ipapi.co answers reserved and unknown addresses with an error body and status 200.
  return { body: location ? { ip, ...location } : { ip, error: true, reason: 'Reserved IP Address' } };
});
const lookups = (ip: string) => provider.requests.filter((request) => request.path === `/${encodeURIComponent(ip)}/json/`).length;

/** ADR 0030: a country's ID is derived from its alpha-2 code, a state's from its country's. */
const countryId = (code: string) => (code.charCodeAt(0) - 65) * 26 + (code.charCodeAt(1) - 65) + 1;
/** ADR 0032: a language's ID is derived from its ISO 639-1 code. */
const languageId = (code: string) => (code.charCodeAt(0) - 97) * 26 + (code.charCodeAt(1) - 97) + 1;

type Json = Record<string, unknown>;
interface CountryItem {
  id: number;
  code: string | null;
  title: string;
  sort: number;
  selected: boolean;
  states: Array<{ id: number; code: string; title: string; county_id: number }>;
}

describe('localization', () => {
  const s = useStack({
    env: {
      GEOINFO_URL: provider.url,
      GEOINFO_RETRY_AFTER_MS: '0',
      DEFAULT_CURRENCIES: 'USD, EUR',
      // Every request reads the lists afresh, so a test sees the users it arranged at once.
      LOCALIZATION_CACHE_TTL_MS: '0',
    },
  });
  afterAll(() => provider.close());

  let tenant: Tenant;
  let admin: { token: string };
  let memberToken: string;
  const signIn = async (target: Tenant, email: string, password: string) =>
    (await s.api('/authorization', { headers: { resource: target.publicKey }, json: { email, password } })).body['token'] as string;

  beforeAll(async () => {
    tenant = await createTenant(s.stack);
    const adminMember = await createMember(s.stack, tenant, { role: 'admin' });
    admin = { token: await signIn(tenant, adminMember.email, adminMember.password) };
    const member = await createMember(s.stack, tenant);
    memberToken = await signIn(tenant, member.email, member.password);
  });

  const countries = async (query = '', headers: Record<string, string> = {}, path = '/countries') => {
    const response = await s.api<{ items: CountryItem[] }>(path, { query, headers });
    expect(response.status, response.text.slice(0, 300)).toBe(200);
    return response.body.items;
  };
  /** A GET with a body, which fetch refuses to send; the localization reads accept JSON bodies. */
  const getWithBody = <Body = { items: CountryItem[] }>(path: string, headers: Record<string, string>, body: string) =>
    new Promise<{ status: number; body: Body }>((resolve, reject) => {
      const url = new URL(`${s.stack.baseUrl}${path}`);
      const request = httpRequest(
        url,
        { method: 'GET', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body }),
          );
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  const selectedCodes = (items: CountryItem[]) => items.filter((item) => item.selected).map((item) => item.code);

  describe('GET /countries, country records', () => {
    it('lists every packaged country with its states, sort DESC then title ASC, US selected when the IP is unknown', async () => {
      const response = await s.api<{ items: CountryItem[] }>('/countries');
      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toEqual(['items']);
      const items = response.body.items;
      expect(items).toHaveLength(249);
      // Every country starts at sort 0: the order is the titles' (accents and case ignored).
      const collator = new Intl.Collator('en', { sensitivity: 'base' });
      for (let index = 1; index < items.length; index++) {
        expect(collator.compare(items[index - 1]!.title, items[index]!.title), items[index]!.title).toBeLessThanOrEqual(0);
      }
      expect(items.slice(0, 3).map((item) => item.title)).toEqual(['Afghanistan', 'Åland Islands', 'Albania']);
      // The loopback caller cannot be located (the provider refuses, the database has no entry): US.
      expect(selectedCodes(items)).toEqual(['US']);
      const unitedStates = items.find((item) => item.code === 'US')!;
      expect({ ...unitedStates, states: unitedStates.states.slice(0, 2) }).toEqual({
        id: countryId('US'),
        code: 'US',
        title: 'United States',
        sort: 0,
        selected: true,
        states: [
          { id: countryId('US') * 1000 + 1, code: 'AL', title: 'Alabama', county_id: countryId('US') },
          { id: countryId('US') * 1000 + 2, code: 'AK', title: 'Alaska', county_id: countryId('US') },
        ],
      });
      expect(items.find((item) => item.code === 'AX')).toEqual(
        expect.objectContaining({ id: countryId('AX'), title: 'Åland Islands', sort: 0, selected: false }),
      );
      // State IDs are unique across countries, and each names its own country.
      const stateIds = items.flatMap((item) => item.states.map((state) => state.id));
      expect(new Set(stateIds).size).toBe(stateIds.length);
      for (const item of items) for (const state of item.states) expect(state.county_id).toBe(item.id);
    });

    it('orders by sort DESC before the title: an operator-raised country comes first', async () => {
      const rows = s.db('accounts').collection<{ _id: number; sort: number }>('countries');
      await rows.updateOne({ _id: countryId('NZ') }, { $set: { sort: 5 } });
      await rows.updateOne({ _id: countryId('CH') }, { $set: { sort: 5 } });
      await rows.updateOne({ _id: countryId('DE') }, { $set: { sort: 9 } });
      try {
        const items = await countries();
        expect(items.slice(0, 4).map((item) => [item.code, item.sort])).toEqual([
          ['DE', 9],
          ['NZ', 5],
          ['CH', 5],
          ['AF', 0],
        ]);
      } finally {
        await rows.updateMany({ _id: { $in: [countryId('NZ'), countryId('CH'), countryId('DE')] } }, { $set: { sort: 0 } });
      }
    });

    it('answers the same records, byte for byte but for `selected`, whether the gateway holds them already or not', async () => {
      const located = (ip: string) => s.api<{ items: CountryItem[] }>('/countries', { headers: { 'x-forwarded-for': ip } });
      const [first, second, third] = [await located('203.0.113.7'), await located('203.0.113.8'), await located('203.0.113.7')];
      expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
      expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect([selectedCodes(first.body.items), selectedCodes(second.body.items)]).toEqual([['DE'], ['FR']]);
      expect(third.text).toBe(first.text);
      expect(second.body.items).toEqual(first.body.items.map((item) => ({ ...item, selected: item.code === 'FR' })));
    });

    it('selects the country of the last X-Forwarded-For entry', async () => {
      const items = await countries('', { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' });
      expect(selectedCodes(items)).toEqual(['DE']);
    });

    it('prefers the last entry of the plugin-forwarded header over X-Forwarded-For', async () => {
      const items = await countries('', { 'x-plugin-forwarded-for': '203.0.113.7, 203.0.113.8', 'x-forwarded-for': '203.0.113.9' });
      expect(selectedCodes(items)).toEqual(['FR']);
    });

    it('ignores `ip` from callers without an admin context', async () => {
      const headers = { resource: tenant.publicKey, token: memberToken, 'x-forwarded-for': '203.0.113.9' };
      expect(selectedCodes(await countries('ip=203.0.113.7', headers))).toEqual(['GB']);
      expect(selectedCodes(await countries('ip=203.0.113.7', { 'x-forwarded-for': '203.0.113.9' }))).toEqual(['GB']);
    });

    it('lets an admin context name the IP in the query or the JSON body', async () => {
      const headers = { resource: tenant.publicKey, token: admin.token, 'x-forwarded-for': '203.0.113.9' };
      expect(selectedCodes(await countries('ip=203.0.113.7', headers))).toEqual(['DE']);
      const withBody = await getWithBody('/countries', headers, JSON.stringify({ ip: '203.0.113.8' }));
      expect(withBody.status).toBe(200);
      expect(selectedCodes(withBody.body.items)).toEqual(['FR']);
      // The query wins over the body.
      const both = await getWithBody('/countries?ip=203.0.113.7', headers, JSON.stringify({ ip: '203.0.113.8' }));
      expect(selectedCodes(both.body.items)).toEqual(['DE']);
    });

    it('ignores a malformed JSON body and a body of another type', async () => {
      for (const raw of ['{not json', '[1,2]', '"text"', '{"ip": 7}']) {
        const response = await getWithBody('/countries', { 'x-forwarded-for': '203.0.113.7' }, raw);
        expect(response.status).toBe(200);
        expect(selectedCodes(response.body.items)).toEqual(['DE']);
      }
    });

    it('answers 404 resource_not_exists for an unknown resource key', async () => {
      const response = await s.api('/countries', { headers: { resource: 'no-such-resource' } });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'resource_not_exists', error_description: 'Resource does not exist', req_guid: anyRequestId });
    });
  });

  describe('GET /countries, grouped users’ countries', () => {
    const grouped = (titles: string[]) => titles.map((title) => ({ code: null, title }));
    const sortedBody = (items: Json[]) => [...items].sort((left, right) => String(left['title']).localeCompare(String(right['title'])));

    beforeAll(async () => {
      // Users of two resources: the grouping spans every resource.
      const other = await createTenant(s.stack);
      const users = s.db('identity').collection<{ _id: number; country: unknown }>('users');
      const arrange = async (target: Tenant, country: unknown) => {
        const member = await createMember(s.stack, target);
        await users.updateOne({ _id: member.id }, country === undefined ? { $unset: { country: '' } } : { $set: { country } });
      };
      await arrange(tenant, 'germany');
      await arrange(other, 'Germany');
      await arrange(tenant, 'france');
      await arrange(other, 'ünited Kingdom');
      await arrange(tenant, '');
      await arrange(other, undefined);
      // The admin and the member of the outer beforeAll have no country (null).
    });

    const expected = sortedBody(grouped(['Country not set', 'France', 'Germany', 'Ünited Kingdom']));

    it.each([
      ['query real=true', 'real=true', undefined],
      ['query real=1', 'real=1', undefined],
      ['query real=TRUE', 'real=TRUE', undefined],
      ['JSON body real: true', '', { real: true }],
    ])('groups every user’s country text with a resource and %s', async (_name, query, json) => {
      const headers = { resource: tenant.publicKey };
      const response = json
        ? await getWithBody<{ items: Json[] }>('/countries', headers, JSON.stringify(json))
        : await s.api<{ items: Json[] }>('/countries', { query, headers });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toEqual(['items']);
      expect(sortedBody(response.body.items)).toEqual(expected);
    });

    it('groups for a resource whose setting use_group_users_country is on, without `real`', async () => {
      const grouping = await createTenant(s.stack, { settings: { use_group_users_country: true } });
      const response = await s.api<{ items: Json[] }>('/countries', { headers: { resource: grouping.publicKey } });
      expect(response.status).toBe(200);
      expect(sortedBody(response.body.items)).toEqual(expected);
    });

    it.each([
      ['real=false', 'real=false'],
      ['real=yes (not a boolean)', 'real=yes'],
      ['no real', ''],
    ])('lists country records with a resource and %s', async (_name, query) => {
      const items = await countries(query, { resource: tenant.publicKey });
      expect(items).toHaveLength(249);
    });

    it('ignores `real` in a JSON body unless it is the JSON boolean true', async () => {
      for (const real of ['"true"', '1', '"1"']) {
        const response = await getWithBody('/countries', { resource: tenant.publicKey }, `{"real": ${real}}`);
        expect(response.body.items, real).toHaveLength(249);
      }
    });

    it('lists country records for real=true without a resource (grouping needs one)', async () => {
      const items = await countries('real=true');
      expect(items).toHaveLength(249);
    });
  });

  describe('GET /admin/countries', () => {
    it('answers like GET /countries in an admin context, `ip` included', async () => {
      const headers = { resource: tenant.publicKey, token: admin.token };
      const items = await countries('ip=203.0.113.9', headers, '/admin/countries');
      expect(items).toHaveLength(249);
      expect(selectedCodes(items)).toEqual(['GB']);
      const groupedItems = await countries('real=1', headers, '/admin/countries');
      expect(groupedItems).toContainEqual({ code: null, title: 'Country not set' });
    });

    it('refuses guests (401 auth_failed), members (403 access) and a missing resource (404)', async () => {
      const guest = await s.api('/admin/countries', { headers: { resource: tenant.publicKey } });
      expect(guest.status).toBe(401);
      expect(guest.body).toEqual({ error: 'auth_failed', error_description: 'Authentication required', req_guid: anyRequestId });
      const member = await s.api('/admin/countries', { headers: { resource: tenant.publicKey, token: memberToken } });
      expect(member.status).toBe(403);
      expect(member.body).toEqual({ error: 'access', error_description: 'Access denied', req_guid: anyRequestId });
      const noResource = await s.api('/admin/countries', { headers: { token: admin.token } });
      expect(noResource.status).toBe(404);
      expect(noResource.body).toEqual({
        error: 'resource_not_exists',
        error_description: 'Resource does not exist',
        req_guid: anyRequestId,
      });
    });
  });

  describe('GET /geoinfo', () => {
    const geoinfo = async (query: string, headers: Record<string, string> = {}) => {
      const response = await s.api<{ data: Json }>('/geoinfo', { query, headers });
      expect(response.status, response.text).toBe(200);
      expect(Object.keys(response.body)).toEqual(['data']);
      return response.body.data;
    };

    it('answers from the provider with state null (the external branch)', async () => {
      expect(await geoinfo('ip=203.0.113.7')).toEqual({
        ip: '203.0.113.7',
        country: 'Germany',
        country_code: 'DE',
        state: null,
        city: 'Munich',
      });
      expect(await geoinfo('ip=2001:db8::7')).toEqual({
        ip: '2001:db8::7',
        country: 'Netherlands',
        country_code: 'NL',
        state: null,
        city: 'Woerden',
      });
    });

    it('names the country from the country list when the provider gives only a code; unknown values are null', async () => {
      expect(await geoinfo('ip=203.0.113.10')).toEqual({
        ip: '203.0.113.10',
        country: 'Canada',
        country_code: 'CA',
        state: null,
        city: null,
      });
    });

    it('asks the provider once for repeated lookups of one IP (cache)', async () => {
      expect(lookups('203.0.113.11')).toBe(0);
      for (let attempt = 0; attempt < 3; attempt++) {
        expect(await geoinfo('ip=203.0.113.11')).toEqual({
          ip: '203.0.113.11',
          country: 'Japan',
          country_code: 'JP',
          state: null,
          city: 'Tokyo',
        });
      }
      // GET /countries locates through the same cache.
      expect(selectedCodes(await countries('', { 'x-forwarded-for': '203.0.113.11' }))).toEqual(['JP']);
      expect(lookups('203.0.113.11')).toBe(1);
    });

    it('falls back to the installed database when the provider fails (HTTP 500, not JSON), never a 500', async () => {
      // The installed database is DB-IP's city lite edition pinned by the lockfile.
      expect(await geoinfo('ip=8.8.8.8')).toEqual({
        ip: '8.8.8.8',
        country: 'United States',
        country_code: 'US',
        state: 'California',
        city: 'Mountain View',
      });
      expect(lookups('8.8.8.8')).toBeGreaterThanOrEqual(1);
      expect(await geoinfo('ip=1.1.1.1')).toEqual(expect.objectContaining({ ip: '1.1.1.1', country_code: 'AU', country: 'Australia' }));
    });

    it('falls back when the provider refuses the address, and answers nulls where nothing is known', async () => {
      expect(await geoinfo('ip=127.0.0.1')).toEqual({ ip: '127.0.0.1', country: null, country_code: null, state: null, city: null });
      expect(lookups('127.0.0.1')).toBeGreaterThanOrEqual(1);
    });

    it('uses the resolved request IP when `ip` is falsey', async () => {
      const expected = { ip: '203.0.113.7', country: 'Germany', country_code: 'DE', state: null, city: 'Munich' };
      expect(await geoinfo('', { 'x-forwarded-for': '203.0.113.7' })).toEqual(expected);
      expect(await geoinfo('ip=', { 'x-forwarded-for': '10.1.1.1, 203.0.113.7' })).toEqual(expected);
      expect(await geoinfo('ip=0', { 'x-plugin-forwarded-for': '203.0.113.7' })).toEqual(expected);
    });

    it('does not validate the format: a text that is no IP answers nulls without a provider call', async () => {
      const before = provider.requests.length;
      expect(await geoinfo('ip=not-an-ip')).toEqual({ ip: 'not-an-ip', country: null, country_code: null, state: null, city: null });
      expect(await geoinfo('ip[]=203.0.113.7', { 'x-forwarded-for': '203.0.113.8' })).toEqual(
        expect.objectContaining({ ip: '203.0.113.7', country_code: 'DE' }),
      );
      expect(provider.requests.length - before).toBe(0);
    });
  });

  describe('GET /currency and GET /admin/currency', () => {
    const currency = async (target?: Tenant) => {
      const response = await s.api('/currency', { headers: target ? { resource: target.publicKey } : {} });
      expect(response.status).toBe(200);
      return response.body;
    };

    it('lists the deployment default without a resource or without a `currencies` setting', async () => {
      const expected = { items: [{ title: 'USD' }, { title: 'EUR' }] };
      expect(await currency()).toEqual(expected);
      expect(await currency(tenant)).toEqual(expected);
      expect(await currency(await createTenant(s.stack, { settings: { currencies: 'USD' } }))).toEqual(expected);
    });

    it('lists the resource’s labels in configured order, as configured', async () => {
      const configured = await createTenant(s.stack, { settings: { currencies: ['GBP', 'usd', ' Points ', 7, '', null, 'EUR'] } });
      expect(await currency(configured)).toEqual({ items: [{ title: 'GBP' }, { title: 'usd' }, { title: 'Points' }, { title: 'EUR' }] });
    });

    it('omits `items` when the resource configures none', async () => {
      const none = await createTenant(s.stack, { settings: { currencies: [] } });
      const response = await s.api('/currency', { headers: { resource: none.publicKey } });
      expect(response.status).toBe(200);
      expect(response.text).toBe('{}');
    });

    it('shows admins the ISO 4217 meaning of each label and where the list comes from', async () => {
      const configured = await createTenant(s.stack, { settings: { currencies: ['GBP', 'usd', 'Points', 'JPY'] } });
      const adminMember = await createMember(s.stack, configured, { role: 'admin' });
      const token = await signIn(configured, adminMember.email, adminMember.password);
      const response = await s.api('/admin/currency', { headers: { resource: configured.publicKey, token } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        items: [
          { title: 'GBP', code: 'GBP', name: 'Pound Sterling', digits: 2 },
          { title: 'usd', code: 'USD', name: 'US Dollar', digits: 2 },
          { title: 'Points', code: null, name: null, digits: null },
          { title: 'JPY', code: 'JPY', name: 'Yen', digits: 0 },
        ],
        source: 'resource',
      });
      const fallback = await s.api('/admin/currency', { headers: { resource: tenant.publicKey, token: admin.token } });
      expect(fallback.body).toEqual({
        items: [
          { title: 'USD', code: 'USD', name: 'US Dollar', digits: 2 },
          { title: 'EUR', code: 'EUR', name: 'Euro', digits: 2 },
        ],
        source: 'deployment',
      });
    });

    it('omits `items` for admins too when nothing is configured, with source null', async () => {
      const none = await createTenant(s.stack, { settings: { currencies: [] } });
      const adminMember = await createMember(s.stack, none, { role: 'admin' });
      const token = await signIn(none, adminMember.email, adminMember.password);
      const response = await s.api('/admin/currency', { headers: { resource: none.publicKey, token } });
      expect(response.body).toEqual({ source: null });
    });

    it('refuses /admin/currency to guests (401) and members (403)', async () => {
      expect((await s.api('/admin/currency', { headers: { resource: tenant.publicKey } })).status).toBe(401);
      const member = await s.api('/admin/currency', { headers: { resource: tenant.publicKey, token: memberToken } });
      expect(member.status).toBe(403);
      expect(member.body).toEqual({ error: 'access', error_description: 'Access denied', req_guid: anyRequestId });
    });
  });

  describe('GET /languages', () => {
    const languages = async (query: string) => {
      const response = await s.api<{ items: Json[]; paginator: Json }>('/languages', { query });
      expect(response.status, response.text.slice(0, 300)).toBe(200);
      return response.body;
    };
    const ids = (items: Json[]) => items.map((item) => item['id']);

    it('pages every language by id DESC, limit 10 by default', async () => {
      const body = await languages('');
      expect(Object.keys(body)).toEqual(['items', 'paginator']);
      expect(body.paginator).toEqual({ current_page: 1, page: 1, total_pages: 19, total_items: 183, limit: 10 });
      expect(body.items).toHaveLength(10);
      expect(body.items[0]).toEqual({
        id: languageId('zu'),
        slug: 'zu',
        title: 'Zulu',
        description: 'isiZulu',
        is_default: false,
        active: false,
        sort: 0,
        created_at: anyIsoDate,
        updated_at: anyIsoDate,
      });
      const allIds = ids(body.items) as number[];
      expect(allIds).toEqual([...allIds].sort((left, right) => right - left));
    });

    it('pages with page and limit', async () => {
      const first = await languages('page=1&limit=5&sort=ASC');
      const second = await languages('page=2&limit=5&sort=asc');
      expect(second.paginator).toEqual({ current_page: 2, page: 2, total_pages: 37, total_items: 183, limit: 5 });
      expect(ids(first.items)).toEqual([languageId('aa'), languageId('ab'), languageId('ae'), languageId('af'), languageId('ak')]);
      expect(ids(second.items)).toEqual([languageId('am'), languageId('an'), languageId('ar'), languageId('as'), languageId('av')]);
      const beyond = await languages('page=40');
      expect(beyond.items).toEqual([]);
      expect(beyond.paginator).toEqual({ current_page: 40, page: 40, total_pages: 19, total_items: 183, limit: 10 });
    });

    it('casts page to an integer, as its row says (document 2, B): page=2.5 is page 2', async () => {
      const cast = await languages('page=2.5&limit=5&sort=ASC');
      const second = await languages('page=2&limit=5&sort=ASC');
      expect(cast.paginator).toEqual({ current_page: 2, page: 2, total_pages: 37, total_items: 183, limit: 5 });
      expect(ids(cast.items)).toEqual(ids(second.items));
    });

    it('filters by a bracket map and includes inactive and non-default records', async () => {
      const active = await languages('filter[active]=true&by=id&sort=ASC&limit=50');
      expect(active.paginator['total_items']).toBe(22);
      expect(active.items.map((item) => item['slug'])).toEqual([
        'ar',
        'cs',
        'da',
        'de',
        'en',
        'es',
        'fi',
        'fr',
        'he',
        'hi',
        'it',
        'ja',
        'ko',
        'nb',
        'nl',
        'pl',
        'pt',
        'ru',
        'sv',
        'tr',
        'uk',
        'zh',
      ]);
      expect(active.items.filter((item) => item['is_default']).map((item) => item['slug'])).toEqual(['en']);
      const inactive = await languages('filter[active]=0&limit=1');
      expect(inactive.paginator['total_items']).toBe(183 - 22);
      const titled = await languages('filter[title]=NORWEGIAN&by=title&sort=ASC');
      expect(titled.items.map((item) => item['title'])).toEqual(['Norwegian', 'Norwegian Bokmål', 'Norwegian Nynorsk']);
      const prefixed = await languages('filter[Languages.id][]=118&filter[Languages.id][]=27');
      expect(ids(prefixed.items)).toEqual([languageId('en'), languageId('ba')]);
    });

    it('filters by a JSON string and orders by `order` over `by`', async () => {
      const body = await languages(`filter=${encodeURIComponent(JSON.stringify({ slug: 'en' }))}`);
      expect(body.items).toEqual([
        {
          id: languageId('en'),
          slug: 'en',
          title: 'English',
          description: 'English',
          is_default: true,
          active: true,
          sort: 100,
          created_at: anyIsoDate,
          updated_at: anyIsoDate,
        },
      ]);
      const bySort = await languages('order=sort&by=title&sort=DESC&limit=3');
      expect(bySort.items.map((item) => item['sort'])).toEqual([100, 50, 50]);
    });

    it.each([
      ['an unknown filter field', 'filter[code]=en', { 'filter.code': 'code is not a filter of this list' }],
      ['a non-boolean flag', 'filter[active]=maybe', { 'filter.active': 'active takes true or false' }],
      ['an unknown sort field', 'by=created_at', { order: 'created_at is not a sortable field' }],
      ['a bad sort direction', 'sort=UP', { sort: 'sort must be ASC or DESC' }],
      ['a non-numeric page', 'page=abc', { page: 'page must be a positive integer' }],
      ['a malformed JSON filter', 'filter={nope', { filter: 'filter must be a bracket map or a JSON object' }],
    ])('answers 409 with error_fields for %s', async (_name, query, fields) => {
      const response = await s.api('/languages', { query });
      expect(response.status).toBe(409);
      expect(response.body).toEqual({ error: true, error_fields: fields, req_guid: anyRequestId });
    });
  });

  describe('GET /languages/{id}', () => {
    it('answers the language record, inactive ones included', async () => {
      const response = await s.api(`/languages/${languageId('de')}`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        id: languageId('de'),
        slug: 'de',
        title: 'German',
        description: 'Deutsch',
        is_default: false,
        active: true,
        sort: 50,
        created_at: anyIsoDate,
        updated_at: anyIsoDate,
      });
      const inactive = await s.api(`/languages/${languageId('eo')}`);
      expect(inactive.body).toEqual(expect.objectContaining({ slug: 'eo', title: 'Esperanto', active: false }));
    });

    it.each(['999999', '0', 'abc', '1e3', '-1', '12345678901'])('answers 404 language_not_found for %s', async (id) => {
      const response = await s.api(`/languages/${id}`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'language_not_found', error_description: 'Language not found', req_guid: anyRequestId });
    });
  });
});
