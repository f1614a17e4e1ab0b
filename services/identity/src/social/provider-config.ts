import { z } from 'zod';

/**
 * Signature algorithms an ID token may use: asymmetric only. A symmetric `HS*` would let anyone
 * holding the (public) JWKS forge tokens, and `none` is no signature at all.
 */
export const ALLOWED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

const isLoopback = (url: URL) => ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);

/** HTTPS, or HTTP on loopback only (a local provider in development and tests). */
const jwksUrl = z
  .string()
  .url()
  .refine((text) => {
    const url = new URL(text);
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url));
  }, 'expected an https URL (http only on loopback)');

const providerSchema = z
  .object({
    /** Exact `iss` claim value, e.g. https://accounts.google.com. */
    issuer: z.string().min(1),
    jwks_url: jwksUrl,
    /** Client IDs of this deployment at the provider: the token's `aud` must name one. */
    audiences: z.array(z.string().min(1)).min(1),
    algorithms: z.array(z.enum(ALLOWED_ALGORITHMS)).min(1).default(['RS256']),
  })
  .strict();

export type SocialProviderConfig = z.infer<typeof providerSchema>;

/** Provider names travel in requests and link keys (`<provider>:<sub>`): no colon, no spaces. */
export const PROVIDER_NAME = /^[a-z0-9_-]{1,32}$/;

/**
 * `SOCIAL_PROVIDERS`: a JSON object of provider name → {issuer, jwks_url, audiences,
 * algorithms?}. Empty or absent: no provider, and social sign-in refuses every provider name.
 */
export const socialProvidersEnv = z
  .string()
  .default('{}')
  .transform((text, context) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      context.addIssue({ code: z.ZodIssueCode.custom, message: 'expected a JSON object' });
      return z.NEVER;
    }
  })
  .pipe(z.record(z.string().regex(PROVIDER_NAME, 'provider names are 1-32 of a-z, 0-9, _ and -'), providerSchema));
