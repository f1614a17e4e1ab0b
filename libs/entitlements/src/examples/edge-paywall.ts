// A paywall at the edge, as a Web-standard `fetch` handler (Cloudflare Workers, Deno, Vercel and
// Netlify edge functions, Bun; Node 18+ with any adapter). A publisher copies this file and
// imports from '@masthead/entitlements' instead of '../index.js'.
//
// Readers' clients keep the `entitlement_token` of their sign-in or refresh answer (or ask
// POST /api/v1/user/entitlement-token) and send it as `Authorization: Bearer <token>` or in the
// `masthead_entitlement` cookie. The edge verifies it against Masthead's published key set, held in
// memory between requests: no call to Masthead per page view.
import { createVerifier, EntitlementTokenRefused, hasPlan, type EntitlementClaims } from '../index.js';

export interface PaywallConfig {
  /** `https://api.example.com` (the API's origin; the key set is at /.well-known/jwks.json). */
  mastheadOrigin: string;
  /** The resource's public key. */
  resource: string;
  /** Paths under this prefix need `plan`; everything else passes through. */
  protectedPrefix: string;
  /** The plan slug that opens the protected paths. */
  plan: string;
  /** Also refuse tokens revoked since they were issued (one small signed list, fetched every ~30 s). */
  useRevocationList?: boolean;
  /** Where an allowed request goes: the publisher's origin server. */
  origin: (request: Request) => Promise<Response>;
  /** For tests; defaults to the global fetch. */
  fetch?: typeof fetch;
}

const COOKIE = 'masthead_entitlement';

/** The token a reader's request carries: a bearer token, else the cookie. */
export function tokenOf(request: Request): string | null {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '');
  if (bearer) return bearer[1]!;
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return value.join('=') || null;
  }
  return null;
}

const refusal = (status: number, error: string, challenge?: string): Response =>
  new Response(JSON.stringify({ error }), {
    status,
    headers: {
      'content-type': 'application/json',
      // A paywall's answer depends on the reader: no shared cache may keep it.
      'cache-control': 'private, no-store',
      ...(challenge ? { 'www-authenticate': challenge } : {}),
    },
  });

/** The handler: protected paths need a valid token listing the plan; others go to the origin. */
export function paywall(config: PaywallConfig): (request: Request) => Promise<Response> {
  const verifier = createVerifier({
    resource: config.resource,
    jwksUrl: new URL('/.well-known/jwks.json', config.mastheadOrigin),
    ...(config.useRevocationList ? { revocationsUrl: new URL('/api/v1/entitlement-revocations', config.mastheadOrigin) } : {}),
    ...(config.fetch ? { fetch: config.fetch } : {}),
  });
  return async (request) => {
    if (!new URL(request.url).pathname.startsWith(config.protectedPrefix)) return config.origin(request);
    const token = tokenOf(request);
    if (!token) return refusal(401, 'sign_in_required', 'Bearer realm="masthead"');
    let claims: EntitlementClaims;
    try {
      claims = await verifier.verify(token);
    } catch (error) {
      if (!(error instanceof EntitlementTokenRefused)) throw error;
      // An outage of Masthead is not the reader's fault; everything else asks for a new token.
      if (error.reason === 'unavailable') return refusal(503, 'entitlements_unavailable');
      return refusal(401, error.reason, `Bearer realm="masthead", error="invalid_token"`);
    }
    if (!hasPlan(claims, config.plan)) return refusal(403, 'plan_required');
    return config.origin(request);
  };
}

/** One handler (and so one key set) per isolate, made at the first request. */
let handler: ((request: Request) => Promise<Response>) | undefined;

/** What a Workers-style deployment exports: configuration from its environment bindings. */
export default {
  fetch(request: Request, env: { MASTHEAD_ORIGIN: string; MASTHEAD_RESOURCE: string; PAYWALL_PLAN: string }): Promise<Response> {
    handler ??= paywall({
      mastheadOrigin: env.MASTHEAD_ORIGIN,
      resource: env.MASTHEAD_RESOURCE,
      protectedPrefix: '/premium/',
      plan: env.PAYWALL_PLAN,
      origin: (forwarded) => fetch(forwarded),
    });
    return handler(request);
  },
};
