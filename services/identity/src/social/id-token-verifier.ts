import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import type { SocialProviderConfig } from './provider-config.js';
import { socialProviderUnavailable } from './social.errors.js';

/** What a verified ID token tells us about the person. */
export interface VerifiedIdentity {
  provider: string;
  sub: string;
  email: string | null;
}

/** The token did not verify; `reason` is for logs only, never for responses. */
export class IdTokenRejected extends Error {
  constructor(readonly reason: string) {
    super(`ID token rejected: ${reason}`);
    this.name = 'IdTokenRejected';
  }
}

export interface VerifierOptions {
  jwksTimeoutMs: number;
  clockToleranceSeconds: number;
}

/**
 * The provider's key set could not be had (network failure, timeout, not a 200, not a JWKS):
 * the token's fault is unknown, so this is not a refusal but an outage, for the caller to retry.
 */
const isKeySetUnavailable = (error: unknown): boolean =>
  !(error instanceof errors.JOSEError) ||
  error instanceof errors.JWKSTimeout ||
  error instanceof errors.JWKSInvalid ||
  error.code === errors.JOSEError.code;

/** OpenID Connect Core 1.0, section 2: `sub` is at most 255 ASCII characters. */
const MAX_SUB_LENGTH = 255;

type KeySet = ReturnType<typeof createRemoteJWKSet>;

interface Provider {
  config: SocialProviderConfig;
  keys: KeySet;
}

/**
 * Verifies provider ID tokens (OpenID Connect JWTs) with jose: signature against the provider's
 * JWKS (fetched and cached by jose, refetched when a token names an unknown `kid`), an
 * algorithm from the provider's allow-list, exact `iss`, an `aud` naming one of our client IDs
 * (and `azp`, when present, too), `exp` and `nbf` with a small clock tolerance.
 */
export class IdTokenVerifier {
  private readonly providers: Map<string, Provider>;

  constructor(
    providers: Readonly<Record<string, SocialProviderConfig>>,
    private readonly options: VerifierOptions,
  ) {
    this.providers = new Map(
      Object.entries(providers).map(([name, config]) => [
        name,
        { config, keys: createRemoteJWKSet(new URL(config.jwks_url), { timeoutDuration: options.jwksTimeoutMs }) },
      ]),
    );
  }

  has(provider: string): boolean {
    return this.providers.has(provider);
  }

  /**
   * The identity of a valid token. Throws IdTokenRejected for a token that does not verify, and
   * 503 social_provider_unavailable when the provider's key set cannot be fetched.
   */
  async verify(providerName: string, token: string): Promise<VerifiedIdentity> {
    const provider = this.providers.get(providerName);
    if (!provider) throw new IdTokenRejected('unknown provider');
    const { config, keys } = provider;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: config.issuer,
        audience: config.audiences,
        algorithms: config.algorithms,
        clockTolerance: this.options.clockToleranceSeconds,
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (error) {
      if (isKeySetUnavailable(error)) throw socialProviderUnavailable();
      throw new IdTokenRejected(error instanceof errors.JOSEError ? error.code : 'malformed token');
    }
    const sub = payload.sub ?? '';
    if (sub.length === 0 || sub.length > MAX_SUB_LENGTH) throw new IdTokenRejected('sub out of range');
    // OIDC Core 3.1.3.7: an authorized party, when named, must be one of our clients too.
    if (payload['azp'] !== undefined && !config.audiences.includes(String(payload['azp']))) throw new IdTokenRejected('azp not ours');
    const email = typeof payload['email'] === 'string' ? payload['email'] : null;
    return { provider: providerName, sub, email };
  }
}
