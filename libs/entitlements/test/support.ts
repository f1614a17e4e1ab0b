import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { ENTITLEMENT_TOKEN_TYPE, REVOCATION_LIST_TYPE } from '../src/index.js';

/** A signing key as Masthead holds one: the private half signs, the public JWK is published. */
export interface TestKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function newKey(kid: string): Promise<TestKey> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' } };
}

export const RESOURCE = 'news-resource';
export const ISSUER = 'masthead-test';

/** Claims of a valid token at `nowSeconds`, as identity makes them. */
export const claimsAt = (nowSeconds: number, overrides: JWTPayload = {}): JWTPayload => ({
  iss: ISSUER,
  aud: RESOURCE,
  sub: '42',
  sid: '7',
  iat: nowSeconds,
  nbf: nowSeconds,
  exp: nowSeconds + 900,
  plans: [{ id: 3, slug: 'premium', pricing_id: 11 }],
  team_plans: [],
  passes: [{ id: 5, event_id: 2, ticket_id: 4 }],
  ...overrides,
});

export const signToken = (key: TestKey, claims: JWTPayload, typ = ENTITLEMENT_TOKEN_TYPE): Promise<string> =>
  new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ }).sign(key.privateKey);

export const signRevocations = (key: TestKey, claims: JWTPayload): Promise<string> => signToken(key, claims, REVOCATION_LIST_TYPE);

/**
 * A local HTTP server standing in for Masthead's two public documents: the key set (with the
 * Cache-Control Masthead sends) and the revocation list. Tests change what it serves and count
 * what it was asked.
 */
export interface KeyServer {
  origin: string;
  jwksUrl: string;
  revocationsUrl: string;
  keys: JWK[];
  maxAgeSeconds: number;
  /** The body of the revocation list answer; null answers 503. */
  revocationList: string | null;
  /** Answers 503 to everything while set. */
  down: boolean;
  jwksFetches: number;
  /** The `resource` header of the last revocation list request. */
  lastResource: string | undefined;
  close(): Promise<void>;
}

export async function startKeyServer(): Promise<KeyServer> {
  const state: Omit<KeyServer, 'origin' | 'jwksUrl' | 'revocationsUrl' | 'close'> = {
    keys: [],
    maxAgeSeconds: 60,
    revocationList: null,
    down: false,
    jwksFetches: 0,
    lastResource: undefined,
  };
  const server: Server = createServer((req, res) => {
    if (state.down) return void res.writeHead(503).end();
    if (req.url === '/.well-known/jwks.json') {
      state.jwksFetches++;
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': `public, max-age=${state.maxAgeSeconds}` });
      return void res.end(JSON.stringify({ keys: state.keys }));
    }
    if (req.url === '/api/v1/entitlement-revocations') {
      state.lastResource = req.headers['resource'] as string | undefined;
      if (state.revocationList === null) return void res.writeHead(503).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ revocation_list: state.revocationList }));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    origin,
    jwksUrl: `${origin}/.well-known/jwks.json`,
    revocationsUrl: `${origin}/api/v1/entitlement-revocations`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** A clock the test moves: milliseconds since the epoch. */
export function testClock(startMs = Date.now()) {
  let now = startMs;
  return {
    now: () => now,
    seconds: () => Math.floor(now / 1000),
    advance(ms: number) {
      now += ms;
    },
  };
}
