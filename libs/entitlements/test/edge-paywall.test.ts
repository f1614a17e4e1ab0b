import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paywall, tokenOf } from '../src/examples/edge-paywall.js';
import { claimsAt, newKey, RESOURCE, signToken, startKeyServer, type KeyServer, type TestKey } from './support.js';

/**
 * The worked example of the README's "Paywall at the edge": a Web-standard fetch handler, called
 * with Request objects as an edge runtime calls it, against a key server on a loopback port.
 */
describe('edge paywall example', () => {
  let server: KeyServer;
  let key: TestKey;
  const seen: string[] = [];
  let handle: (request: Request) => Promise<Response>;

  beforeAll(async () => {
    server = await startKeyServer();
    key = await newKey('edge-key');
    server.keys = [key.publicJwk];
    handle = paywall({
      mastheadOrigin: server.origin,
      resource: RESOURCE,
      protectedPrefix: '/premium/',
      plan: 'premium',
      origin: async (request) => {
        seen.push(new URL(request.url).pathname);
        return new Response('the article');
      },
    });
  });
  afterAll(() => server.close());

  const now = () => Math.floor(Date.now() / 1000);
  const get = (path: string, headers: Record<string, string> = {}) => handle(new Request(`https://news.example${path}`, { headers }));

  it('lets free paths through without a token', async () => {
    const response = await get('/free/story');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('the article');
  });

  it('serves a protected path to a reader whose token lists the plan (bearer or cookie)', async () => {
    const token = await signToken(key, claimsAt(now(), { iss: 'masthead' }));
    const carriers: Array<Record<string, string>> = [
      { authorization: `Bearer ${token}` },
      { cookie: `theme=dark; masthead_entitlement=${token}` },
    ];
    for (const headers of carriers) {
      const response = await get('/premium/story', headers);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('the article');
    }
    expect(seen.filter((path) => path === '/premium/story')).toHaveLength(2);
  });

  it('answers 401 without a token, asking for one', async () => {
    const response = await get('/premium/story');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="masthead"');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(await response.json()).toEqual({ error: 'sign_in_required' });
  });

  it('answers 403 to a valid token without the plan, and never reaches the origin', async () => {
    const before = seen.length;
    const token = await signToken(key, claimsAt(now(), { plans: [{ id: 1, slug: 'basic', pricing_id: 2 }] }));
    const response = await get('/premium/other', { authorization: `Bearer ${token}` });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: 'plan_required' });
    expect(seen.length).toBe(before);
  });

  it('opens the path to the plan held as a team seat too', async () => {
    const token = await signToken(key, claimsAt(now(), { plans: [], team_plans: [{ id: 3, slug: 'premium', pricing_id: 12 }] }));
    expect((await get('/premium/story', { authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it('answers 401 invalid_token with the reason to an expired, foreign or tampered token', async () => {
    const expired = await signToken(key, claimsAt(now() - 2000, { exp: now() - 60 }));
    const foreign = await signToken(key, claimsAt(now(), { aud: 'another-publication' }));
    const [header, payload] = (await signToken(key, claimsAt(now()))).split('.');
    const tampered = `${header}.${payload}.${Buffer.alloc(64).toString('base64url')}`;
    for (const [token, reason] of [
      [expired, 'expired'],
      [foreign, 'wrong_resource'],
      [tampered, 'bad_signature'],
    ] as const) {
      const response = await get('/premium/story', { authorization: `Bearer ${token}` });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(await response.json()).toEqual({ error: reason });
    }
  });

  it('reads the bearer token before the cookie, and an empty cookie as no token', () => {
    const both = new Request('https://news.example/', { headers: { authorization: 'Bearer a.b.c', cookie: 'masthead_entitlement=x.y.z' } });
    expect(tokenOf(both)).toBe('a.b.c');
    expect(tokenOf(new Request('https://news.example/', { headers: { cookie: 'masthead_entitlement=' } }))).toBeNull();
  });
});
