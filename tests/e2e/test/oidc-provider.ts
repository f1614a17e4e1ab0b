import { createHmac, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A signing key of the local provider: RSA for RS256, P-256 for ES256. */
interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: KeyObject;
  publicKey: KeyObject;
}

const base64url = (value: Buffer | string) => Buffer.from(value).toString('base64url');

function newKey(alg: SigningKey['alg']): SigningKey {
  const pair = alg === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid: randomUUID(), alg, ...pair };
}

export interface TokenOptions {
  /** Header overrides: `alg`, `kid`. */
  header?: Record<string, unknown>;
  /** Signs with this key instead of the published one (a forged signature). */
  key?: SigningKey;
  /** Produces the token without any signature (`alg: none`). */
  unsigned?: boolean;
  /** Signs with HMAC-SHA256 using this secret (an algorithm-confusion attempt). */
  hmacSecret?: string;
}

/**
 * An OpenID Connect provider for tests: a local HTTP server that publishes a JWKS, and a signer of
 * ID tokens built on node:crypto (no token library, so that the test does not share the code it
 * checks).
 */
export class LocalOidcProvider {
  readonly rsa = newKey('RS256');
  readonly ec = newKey('ES256');
  /** A key the provider never publishes. */
  readonly stranger = newKey('RS256');
  readonly issuer = `https://issuer-${randomUUID()}.example.test`;
  readonly audience = `client-${randomUUID()}`;
  private server: Server | undefined;
  jwksUrl = '';

  async start(): Promise<void> {
    const jwks = {
      keys: [this.rsa, this.ec].map((key) => ({ ...key.publicKey.export({ format: 'jwk' }), kid: key.kid, alg: key.alg, use: 'sig' })),
    };
    this.server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.jwksUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/jwks`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** Claims of a valid token for `sub`, overridable. */
  claims(sub: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const now = Math.floor(Date.now() / 1000);
    return { iss: this.issuer, aud: this.audience, sub, iat: now, exp: now + 600, email: `${sub}@mail.example.test`, ...overrides };
  }

  /** A compact JWS of the claims, signed by the published RSA key unless told otherwise. */
  token(claims: Record<string, unknown>, options: TokenOptions = {}): string {
    const key = options.key ?? this.rsa;
    const alg = options.unsigned ? 'none' : options.hmacSecret ? 'HS256' : key.alg;
    const header = { alg, kid: (options.key ?? this.rsa).kid, typ: 'JWT', ...options.header };
    const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
    if (options.unsigned) return `${input}.`;
    if (options.hmacSecret) return `${input}.${base64url(createHmac('sha256', options.hmacSecret).update(input).digest())}`;
    const signature =
      key.alg === 'RS256'
        ? sign('sha256', Buffer.from(input), key.privateKey)
        : sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
    return `${input}.${base64url(signature)}`;
  }
}
