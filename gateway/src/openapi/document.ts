import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { ignoreOverride, zodToJsonSchema, type OverrideCallback } from 'zod-to-json-schema';
import type { RoutePolicy } from '../auth/shared-checks.js';
import type { RequestSchema } from '../http/request.js';
import { ACCESS_CLASSES, type AccessClass } from '../routes/access.js';
import { ENTITLEMENT_COMPONENTS, successSchemaOf, WELL_KNOWN_PATHS } from './entitlements.js';
import { standInOf } from './hints.js';
import type { RouteDefinition } from '../routes/define.js';

/**
 * The public API as OpenAPI 3.1, made at run time from the route table and each route's request
 * schema (docs/adr/0184): a route added to the table is in the document by itself. Error codes come
 * from the error catalogue (docs/errors.md's data, written at the gateway's build).
 */

/** One entry of the error catalogue (scripts/error-reference.mjs --json). */
export interface CatalogueEntry {
  code: string;
  status: number;
  description: string;
  when: string;
  areas: string[];
}

type JsonSchema = Record<string, unknown>;

/** dist/error-catalogue.json beside the compiled code (src/ in tests falls back to dist/). */
export function loadErrorCatalogue(): CatalogueEntry[] {
  for (const candidate of ['../error-catalogue.json', '../../dist/error-catalogue.json']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as CatalogueEntry[];
  }
  return [];
}

/** The service of an area (`identity/signin` → identity); the gateway and the libraries have none. */
const serviceOfArea = (area: string): string | undefined => {
  const owner = area.split('/')[0]!;
  return owner === 'gateway' || !/^[a-z]+$/.test(owner) || ['core', 'local-infra', 'service-testkit'].includes(owner) ? undefined : owner;
};

/**
 * Whether a route may answer a catalogue entry: the entry is raised by the route's own service, or
 * only by the gateway and the libraries (shared checks, request decoding, the shared codes). An
 * over-approximation by design: the catalogue knows areas, not operations.
 */
function mayAnswer(route: RouteDefinition, entry: CatalogueEntry): boolean {
  const services = entry.areas.map(serviceOfArea).filter((service) => service !== undefined);
  return services.length === 0 || services.includes(route.service);
}

/** `/plans/{id}` stays as written: OpenAPI and the spec share the template syntax. */
const parametersOf = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);

/**
 * The JSON schema of a zod schema, through the stand-ins of what it cannot see into (hints.ts).
 * OpenAPI 3.1's schemas are JSON Schema 2020-12: the 2019-09 target spells `null` as a type, as
 * 3.1 does (3.0's `nullable` is gone); the dialect is the document's, not each schema's.
 */
const jsonSchemaOf = (schema: z.ZodTypeAny): JsonSchema => {
  const json = zodToJsonSchema(schema, {
    target: 'jsonSchema2019-09',
    effectStrategy: 'input',
    pipeStrategy: 'input',
    $refStrategy: 'none',
    // The decoders strip what they do not read: a field beyond those listed is allowed.
    removeAdditionalStrategy: 'strict',
    allowedAdditionalProperties: undefined,
    override: (definition) => {
      const standIn = standInOf(definition);
      return standIn ? (jsonSchemaOf(standIn) as ReturnType<OverrideCallback>) : ignoreOverride;
    },
  }) as JsonSchema;
  delete json['$schema'];
  return json;
};

/** What a request schema says about a source of the raw request (`params`, `query`, `json`, `fields`). */
function sourcesOf(schema: RequestSchema<unknown> | undefined): Record<string, JsonSchema> {
  if (!schema) return {};
  const json = jsonSchemaOf(schema);
  const properties = json['properties'];
  return typeof properties === 'object' && properties !== null ? (properties as Record<string, JsonSchema>) : {};
}

const propertiesOf = (schema: JsonSchema | undefined): Record<string, JsonSchema> =>
  (schema?.['properties'] as Record<string, JsonSchema> | undefined) ?? {};

/** A schema for a value the decoder takes in any form (its quirks are in the description, the spec's). */
const loose = (schema: JsonSchema | undefined): JsonSchema => (schema && Object.keys(schema).length > 0 ? schema : {});

function securityOf(access: AccessClass): Array<Record<string, string[]>> {
  const policy: RoutePolicy = ACCESS_CLASSES[access];
  if (policy.serviceKey) return [{ serviceApiKey: [] }];
  if (policy.member && !policy.access.includes('guest')) return [{ memberToken: [] }];
  return policy.member ? [{}, { memberToken: [] }] : [{}];
}

function headerParameters(access: AccessClass): JsonSchema[] {
  const policy: RoutePolicy = ACCESS_CLASSES[access];
  if (policy.resource === 'ignored') return [];
  return [
    {
      name: 'resource',
      in: 'header',
      required: policy.resource === 'required',
      description: "The resource's public key (document 1, Conventions)",
      schema: { type: 'string' },
    },
  ];
}

/** Responses: the success, then one entry per error status with the codes that can answer it. */
function responsesOf(route: RouteDefinition, catalogue: readonly CatalogueEntry[]): Record<string, JsonSchema> {
  const byStatus = new Map<number, CatalogueEntry[]>();
  for (const entry of catalogue.filter((candidate) => mayAnswer(route, candidate)))
    byStatus.set(entry.status, [...(byStatus.get(entry.status) ?? []), entry]);
  const responses: Record<string, JsonSchema> = {
    '200': {
      description: 'Success (201 where the operation creates)',
      content: { 'application/json': { schema: successSchemaOf(route) ?? {} } },
    },
  };
  for (const [status, entries] of [...byStatus].sort(([a], [b]) => a - b)) {
    const codes = [...new Set(entries.map((entry) => entry.code))];
    responses[String(status)] = {
      description: codes.join(', '),
      'x-error-codes': codes,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return responses;
}

function operationOf(route: RouteDefinition, catalogue: readonly CatalogueEntry[]): JsonSchema {
  const sources = sourcesOf(route.request);
  const pathSchemas = propertiesOf(sources['params']);
  const querySchemas = propertiesOf(sources['query']);
  const body = sources['json'] ?? sources['fields'];
  // A schema that names its sources and no body reads none; one the generator cannot see into may.
  const opaque = Object.keys(sources).length === 0;
  const parameters = [
    ...parametersOf(route.path).map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string', ...loose(pathSchemas[name]) },
    })),
    ...Object.entries(querySchemas).map(([name, schema]) => ({ name, in: 'query', required: false, schema: loose(schema) })),
    // A query read as a whole (the shared page request: page, limit, filter[…], sort, order/by).
    ...(sources['query'] && Object.keys(querySchemas).length === 0
      ? [
          {
            name: 'query',
            in: 'query',
            required: false,
            style: 'deepObject',
            explode: true,
            schema: { type: 'object', additionalProperties: true },
          },
        ]
      : []),
    ...headerParameters(route.access),
  ];
  const operation: JsonSchema = {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, next: string | undefined) => (next ?? '').toUpperCase())}`,
    tags: [route.service],
    summary: `${route.method} ${route.path}`,
    'x-access': route.access,
    security: securityOf(route.access),
    parameters,
    responses: responsesOf(route, catalogue),
  };
  if (route.multipart) {
    operation['requestBody'] = {
      content: { 'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } } } } },
    };
  } else if (body || (opaque && route.method !== 'GET' && route.method !== 'DELETE')) {
    const schema = loose(body);
    operation['requestBody'] = {
      required: false,
      content: {
        'application/json': { schema },
        ...(sources['fields'] ? { 'application/x-www-form-urlencoded': { schema } } : {}),
      },
    };
  }
  return operation;
}

/** The whole document. */
export function openApiDocument(routes: readonly RouteDefinition[], catalogue: readonly CatalogueEntry[], version = '1'): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = { ...WELL_KNOWN_PATHS };
  for (const route of routes) paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operationOf(route, catalogue) };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Masthead API',
      version,
      description: 'Membership back end for publications. Generated from the gateway route table; the contract is ../shared/spec.',
    },
    servers: [{ url: '/api/v1' }],
    paths,
    components: {
      securitySchemes: {
        memberToken: { type: 'apiKey', in: 'header', name: 'token', description: 'A session token (POST /authorization)' },
        serviceApiKey: { type: 'apiKey', in: 'header', name: 'service-api-key', description: 'A service account key (msk_…, ADR 0020)' },
      },
      schemas: {
        ...ENTITLEMENT_COMPONENTS,
        Error: {
          oneOf: [
            {
              type: 'object',
              required: ['error', 'error_description', 'req_guid'],
              properties: {
                error: { type: 'string' },
                error_description: { type: 'string' },
                req_guid: { type: 'string', format: 'uuid' },
              },
            },
            {
              type: 'object',
              required: ['error', 'error_fields', 'req_guid'],
              properties: {
                error: { const: true },
                error_fields: { type: 'object', additionalProperties: { type: 'string' } },
                req_guid: { type: 'string', format: 'uuid' },
              },
            },
          ],
        },
      },
    },
    'x-error-catalogue': catalogue.map(({ code, status, description, when }) => ({ code, status, description, when })),
  };
}
