import { readFileSync } from 'node:fs';
import { ROUTES } from '@masthead/gateway';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStack } from './support.js';

/** Every code of docs/errors.md (the first column of its table). */
const documentedCodes = (): string[] =>
  readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => /^\| `(.*?)` \|/.exec(line)![1]!.replaceAll('\\|', '|'));

type Operation = {
  operationId: string;
  parameters: Array<{ name: string; in: string; schema?: unknown }>;
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
  responses: Record<string, { 'x-error-codes'?: string[] }>;
};

/** GET /api/v1/openapi.json (docs/adr/0184): OpenAPI 3.1, generated from the route table. */
describe('the OpenAPI document', () => {
  const s = useStack();
  let document: { openapi: string; info: unknown; paths: Record<string, Record<string, Operation>> };

  beforeAll(async () => {
    const response = await s.api('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    document = response.body as typeof document;
  });

  it('is OpenAPI 3.1 with every route of the table, each operation once, its path parameters declared', () => {
    expect(document.openapi).toBe('3.1.0');
    const listed = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    // Beside the table: the entitlement tokens' key set, served before the routes (docs/adr/0247).
    expect(listed.sort()).toEqual([...ROUTES.map((route) => `${route.method} ${route.path}`), 'GET /.well-known/jwks.json'].sort());
    const operations = Object.values(document.paths).flatMap((operations) => Object.values(operations));
    expect(new Set(operations.map((operation) => operation.operationId)).size).toBe(operations.length);
    for (const route of ROUTES) {
      const operation = document.paths[route.path]![route.method.toLowerCase()]!;
      const declared = operation.parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
      expect(declared).toEqual([...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]));
      expect(Object.keys(operation.responses)).toContain('200');
    }
  });

  it('names every documented error code in the responses of the operations that can answer it', () => {
    const named = new Set(
      Object.values(document.paths).flatMap((operations) =>
        Object.values(operations).flatMap((operation) =>
          Object.values(operation.responses).flatMap((response) => response['x-error-codes'] ?? []),
        ),
      ),
    );
    const missing = documentedCodes().filter((code) => !named.has(code));
    expect(missing).toEqual([]);
    // The shared checks' codes are on every operation that needs a member.
    expect(document.paths['/user']!['get']!.responses['401']!['x-error-codes']).toEqual(
      expect.arrayContaining(['auth_failed', 'token_expired']),
    );
  });

  it('carries what the request schemas say: a path ID and the query of a paginated list', () => {
    const team = document.paths['/user/teams/{team_id}']!['get']!;
    expect(team.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'team_id', in: 'path' })]));
    const plans = document.paths['/plans']!['get']!;
    expect(plans.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: 'query' }), expect.objectContaining({ name: 'resource', in: 'header' })]),
    );
  });

  it("documents the body fields and query parameters a route's schema reads, typed as the spec's decoders take them", () => {
    const body = (path: string, method: string, type = 'application/json') =>
      document.paths[path]![method]!.requestBody?.content[type]?.schema.properties ?? {};
    expect(body('/authorization', 'post')).toEqual({
      email: { type: 'string' },
      password: { type: 'string' },
      response_type: { type: 'string' },
      redirect_uri: { type: 'string' },
    });
    expect(body('/authorization/refresh', 'post')).toEqual(
      expect.objectContaining({
        reusable_refresh: { type: 'boolean' },
        with_idp_token: { type: ['boolean', 'string', 'number'] },
      }),
    );
    // JSON or form, as the operation accepts both.
    expect(Object.keys(body('/registration', 'post', 'application/x-www-form-urlencoded')).sort()).toEqual([
      'email',
      'first_name',
      'last_name',
      'password',
    ]);
    expect(Object.keys(body('/idp/sign-in', 'post')).sort()).toEqual(['email', 'password']);
    // Read by hand, documented beside the reader; an item list nests.
    expect(document.paths['/payment']!['post']!.requestBody?.content['application/json']?.schema).toEqual(
      expect.objectContaining({ required: ['items'], properties: { items: expect.objectContaining({ type: 'array', minItems: 1 }) } }),
    );
    expect(Object.keys(body('/integrations/external/refund', 'put')).sort()).toEqual([
      'amount',
      'reason',
      'refund_id',
      'transaction_id',
      'user_id',
    ]);
    // A route whose schema reads only its path takes no body.
    expect(document.paths['/user/teams/{team_id}/users/{user_id}/suspend']!['post']!.requestBody).toBeUndefined();
    const written = Object.values(document.paths).flatMap((operations) =>
      Object.entries(operations).filter(([method]) => method !== 'get' && method !== 'delete'),
    );
    const withFields = written.filter(([, operation]) =>
      Object.values(operation.requestBody?.content ?? {}).some(({ schema }) => Object.keys(schema.properties ?? {}).length > 0),
    );
    // At this writing (ADR 0208); a route that moves to a declared shape raises it.
    expect(withFields.length).toBeGreaterThanOrEqual(62);
  });

  it('documents the entitlement token beyond the spec: its claims, the answers that carry it, the key set (docs/adr/0246)', () => {
    const components = (document as unknown as { components: { schemas: Record<string, Record<string, unknown>> } }).components.schemas;
    const schemaOf = (path: string, method: string) =>
      (
        document.paths[path]![method] as unknown as {
          responses: Record<string, { content: Record<string, { schema: Record<string, unknown> }> }>;
        }
      ).responses['200']!.content['application/json']!.schema;
    expect(components['EntitlementClaims']).toMatchObject({
      required: ['iss', 'aud', 'sub', 'sid', 'iat', 'nbf', 'exp', 'plans', 'team_plans', 'passes'],
      properties: { plans: { type: 'array', items: { $ref: '#/components/schemas/EntitlementPlan' } } },
    });
    expect(components['EntitlementPlan']).toMatchObject({ required: ['id', 'slug', 'pricing_id'] });
    for (const [path, method] of [
      ['/authorization', 'post'],
      ['/authorization/refresh', 'post'],
      ['/social-authorization', 'post'],
      ['/idp/oauth/token', 'post'],
      ['/user/entitlement-token', 'post'],
    ] as const) {
      expect(schemaOf(path, method)['properties'], path).toMatchObject({ entitlement_token: { type: 'string' } });
    }
    expect(schemaOf('/.well-known/jwks.json', 'get')).toMatchObject({ required: ['keys'] });
  });
});
