import { createRequire } from 'node:module';
import type { RouteDefinition } from '../routes/define.js';

type JsonSchema = Record<string, unknown>;

/**
 * What the OpenAPI document says of entitlement tokens (docs/adr/0246–0248), beyond the spec: the
 * claims (from the verifier package's JSON Schema, the one source), the `entitlement_token` of the
 * answers that start or renew a session, and the well-known key set.
 */

/** `@masthead/entitlements/schema` is JSON; its `$defs` become components of their own. */
const claimsSchema = createRequire(import.meta.url)('@masthead/entitlements/schema') as JsonSchema & { $defs: Record<string, JsonSchema> };
const DEFINITION_NAMES: Readonly<Record<string, string>> = { plan: 'EntitlementPlan', pass: 'EntitlementPass' };

const asComponent = (schema: JsonSchema): JsonSchema =>
  JSON.parse(
    JSON.stringify(schema).replace(/"#\/\$defs\/(\w+)"/g, (_, name: string) =>
      JSON.stringify(`#/components/schemas/${DEFINITION_NAMES[name]}`),
    ),
  ) as JsonSchema;

/** The claims object without its dialect, identity and definitions (the document has its own). */
const claims = Object.fromEntries(Object.entries(claimsSchema).filter(([key]) => !key.startsWith('$')));
const definitions = claimsSchema.$defs;

export const ENTITLEMENT_COMPONENTS: Record<string, JsonSchema> = {
  EntitlementClaims: asComponent(claims),
  ...Object.fromEntries(Object.entries(definitions).map(([name, schema]) => [DEFINITION_NAMES[name]!, asComponent(schema)])),
  RevocationListClaims: {
    type: 'object',
    description:
      'The payload of GET /entitlement-revocations (header typ `masthead-revocations+jwt`, signed like a token): tokens of a listed session (`sid`) or member (`sub`) whose `iat` is at or before the stamp are stale. Renew after half of `exp - iat`.',
    required: ['iss', 'aud', 'iat', 'exp', 'sessions', 'members'],
    properties: {
      iss: { type: 'string' },
      aud: { type: 'string', description: "The resource's public key" },
      iat: { type: 'integer' },
      exp: { type: 'integer' },
      sessions: { type: 'object', additionalProperties: { type: 'integer' }, description: '`sid` → Unix seconds' },
      members: { type: 'object', additionalProperties: { type: 'integer' }, description: '`sub` → Unix seconds' },
    },
  },
};

const ENTITLEMENT_TOKEN_FIELD: JsonSchema = {
  type: 'string',
  description:
    'Beyond the spec: a signed JWT of what the member holds in the resource (claims: EntitlementClaims), for paywalls at the edge; verify it against GET /.well-known/jwks.json. Present with a session token of a resource while a key can sign; at most 15 minutes valid.',
};

/** The operations whose answer starts or renews a session: each may carry `entitlement_token`. */
const SESSION_ANSWERS = new Set([
  'POST /authorization',
  'POST /authorization/refresh',
  'POST /registration',
  'POST /social-authorization',
  'POST /confirm-password',
  'POST /oauth/token',
  'POST /idp/oauth/token',
  'GET /auth/external/{token}',
  'POST /ti-event/ticket/pass/authorization',
]);

/** The success schema of a route, where the document says more than "JSON". */
export function successSchemaOf(route: RouteDefinition): JsonSchema | undefined {
  const key = `${route.method} ${route.path}`;
  if (SESSION_ANSWERS.has(key)) return { type: 'object', properties: { entitlement_token: ENTITLEMENT_TOKEN_FIELD } };
  if (key === 'POST /user/entitlement-token') {
    return {
      type: 'object',
      required: ['entitlement_token', 'expires'],
      properties: {
        entitlement_token: ENTITLEMENT_TOKEN_FIELD,
        expires: { type: 'integer', description: "Unix seconds: the token's `exp`" },
      },
    };
  }
  if (key === 'GET /entitlement-revocations') {
    return {
      type: 'object',
      required: ['revocation_list', 'max_age'],
      properties: {
        revocation_list: { type: 'string', description: 'A compact JWS of RevocationListClaims' },
        max_age: { type: 'integer', description: 'Seconds until the list is worth fetching again' },
      },
    };
  }
  return undefined;
}

/** Paths served outside the route table: the key set (also at `/.well-known/jwks.json` of the host). */
export const WELL_KNOWN_PATHS: Record<string, Record<string, JsonSchema>> = {
  '/.well-known/jwks.json': {
    get: {
      operationId: 'getWellKnownJwksJson',
      tags: ['identity'],
      summary: 'GET /.well-known/jwks.json',
      description:
        "Beyond the spec: the public keys of entitlement tokens (Ed25519, `alg` EdDSA, by `kid`), also served at the host's root. A new key is published a token lifetime and more before it signs; a retired one stays until its last token has expired; Cache-Control max-age stays within that margin (docs/adr/0247).",
      security: [{}],
      parameters: [],
      responses: {
        '200': {
          description: 'A JWK set',
          headers: { 'Cache-Control': { schema: { type: 'string' }, description: 'public, max-age=N' } },
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['keys'],
                properties: {
                  keys: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['kty', 'crv', 'x', 'kid', 'alg', 'use'],
                      properties: {
                        kty: { const: 'OKP' },
                        crv: { const: 'Ed25519' },
                        x: { type: 'string' },
                        kid: { type: 'string' },
                        alg: { const: 'EdDSA' },
                        use: { const: 'sig' },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};
