import { createHash, createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { open, seal, type KeyRing, type SealedSecret } from '@masthead/core/secrets';
import type { PublicJwk } from './signing-key.schema.js';

/** A new Ed25519 key: its `kid`, public JWK and sealed private key; the private key leaves only sealed. */
export interface NewKeyMaterial {
  kid: string;
  publicJwk: PublicJwk;
  sealedPrivateKey: SealedSecret;
}

/** The private key is bound to its `kid`: a sealed value copied onto another key does not open. */
const aadOf = (kid: string): string => `signing-key:${kid}`;

/** RFC 7638 thumbprint: SHA-256 of the required members in lexicographic order, base64url. */
export const thumbprintOf = (jwk: PublicJwk): string =>
  createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x }))
    .digest('base64url');

export function newKeyMaterial(ring: KeyRing): NewKeyMaterial {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const exported = publicKey.export({ format: 'jwk' });
  const publicJwk: PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: exported.x! };
  const kid = thumbprintOf(publicJwk);
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  return { kid, publicJwk, sealedPrivateKey: sealPrivateKey(ring, kid, pem) };
}

/** Seals a private key's PKCS #8 PEM with the ring's current key. */
export const sealPrivateKey = (ring: KeyRing, kid: string, pem: string): SealedSecret => seal(ring, pem, aadOf(kid));

/** The PEM of a stored private key; throws SecretUnavailable when the ring cannot open it. */
export const openSealedPem = (ring: KeyRing, kid: string, sealed: SealedSecret): string => open(ring, sealed, aadOf(kid));

/** The private key of a stored key; throws SecretUnavailable when the ring cannot open it. */
export const openPrivateKey = (ring: KeyRing, kid: string, sealed: SealedSecret): KeyObject =>
  createPrivateKey(openSealedPem(ring, kid, sealed));

const encodeJson = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * Signs compact JWS with one key (RFC 7515, `alg` EdDSA). node:crypto's synchronous Ed25519
 * signature costs a tenth of jose's WebCrypto path per token (docs/adr/0246), and the header of
 * each `typ` is encoded once.
 */
export class CompactSigner {
  private readonly headers = new Map<string, string>();

  constructor(
    readonly kid: string,
    private readonly key: KeyObject,
  ) {}

  sign(typ: string, payload: object): string {
    let header = this.headers.get(typ);
    if (header === undefined) {
      header = encodeJson({ alg: 'EdDSA', kid: this.kid, typ });
      this.headers.set(typ, header);
    }
    const input = `${header}.${encodeJson(payload)}`;
    return `${input}.${sign(null, Buffer.from(input), this.key).toString('base64url')}`;
  }
}
