import { isServiceError, zodError, type ServiceError } from '@masthead/core/errors';
import { parsePageRequest } from '@masthead/core/pagination';
import type { Request } from 'express';
import { z } from 'zod';
import { documentedAs } from '../openapi/hints.js';
import { bodyFields, jsonObject } from './body.js';

/**
 * What a route's request schema reads: the decoded request, every source in one object, so that
 * one zod schema per route (declared in its row, routes/*.ts) states which source each field
 * comes from and how the spec's quirks cast it.
 */
export interface RawRequest {
  /** Path parameters, `{param}` of the route's path. */
  params: Record<string, string>;
  /** The query as the extended parser read it (bracket maps are objects, repeats are arrays). */
  query: Record<string, unknown>;
  /** JSON object fields and form fields where an operation accepts both: form fields win. */
  fields: Record<string, unknown>;
  /** The JSON body when it is an object; absent for a form, a malformed or a non-object body. */
  json: Record<string, unknown> | undefined;
  /** True when the body was form-encoded. */
  form: boolean;
  /** True when a JSON body was sent but could not be parsed (or nests too deep, http/body.ts). */
  malformed: boolean;
}

export const rawRequestOf = (req: Request): RawRequest => ({
  params: req.params as Record<string, string>,
  query: req.query as Record<string, unknown>,
  fields: bodyFields(req),
  json: jsonObject(req),
  form: req.decoded.form !== undefined,
  malformed: req.decoded.malformed,
});

/** A route's request schema: from the raw request to the handler's input. */
// The input is `unknown` so that a schema over part of the raw request (`{query}`) fits too.
export type RequestSchema<I> = z.ZodType<I, z.ZodTypeDef, unknown>;

/**
 * A zod issue that carries the operation's own error: the first such issue, in the schema's
 * field order (the spec's order of checks), is what the request is answered with.
 */
const RAISE = 'raise';

/** Adds an issue that answers with `error` (a named constructor of gateway/src/errors). */
export function raise(ctx: z.RefinementCtx, error: () => ServiceError): typeof z.NEVER {
  ctx.addIssue({ code: z.ZodIssueCode.custom, params: { [RAISE]: error } });
  return z.NEVER;
}

/** Runs a route's schema; a failure answers with its first issue's own error. */
export function decodeRequest<I>(schema: RequestSchema<I>, raw: RawRequest): I {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    const error: unknown = issue.code === z.ZodIssueCode.custom ? issue.params?.[RAISE] : undefined;
    if (typeof error === 'function') throw (error as () => ServiceError)();
  }
  // Every schema maps its failures to the operation's error; an unmapped one is a 400 that
  // names the fields (the shared adapter) rather than a 500.
  throw zodError(result.error);
}

/* ---- One source each: the schema names its fields, in the spec's order of checks ---- */

/** The raw request itself, for decoders that read several sources (query wins over body, etc.). */
export const rawRequest = z.custom<RawRequest>();

/** Fields of one source, checked by `shape`; issues keep the wire field's path. */
const fromSource =
  (source: 'params' | 'query' | 'fields') =>
  <T extends z.ZodRawShape>(shape: T): RequestSchema<z.output<z.ZodObject<T>>> => {
    const schema = z.object(shape);
    const decoder = rawRequest.transform((raw, ctx) => {
      const result = schema.safeParse(raw[source]);
      if (result.success) return result.data;
      for (const issue of result.error.issues) ctx.addIssue(issue);
      return z.NEVER;
    });
    return documentedAs(decoder, z.object({ [source]: schema }));
  };

/** Body fields of an operation that takes JSON or form (form wins). */
export const fromFields = fromSource('fields');

/** Query parameters. */
export const fromQuery = fromSource('query');

/** Path parameters. */
export const fromParams = fromSource('params');

/* ---- The spec's quirks, one decoder each ---- */

/** A text field; another type counts as missing ('') and yields the operation's own 409. */
export const text = documentedAs(
  z.unknown().transform((value) => (typeof value === 'string' ? value : '')),
  z.string(),
);

/** A text field trimmed, or undefined when missing, blank or not text (optional names). */
export const optionalText = text.transform((value) => value.trim() || undefined);

/**
 * "Truthy" as the spec's flags use it (`with_*`): anything but absent, null, false, 0, '' and
 * '0', so that form fields (`1`, `true`) and JSON booleans both turn a flag on.
 */
export const truthy = documentedAs(
  z
    .unknown()
    .transform((value) => value !== undefined && value !== null && value !== false && value !== 0 && value !== '' && value !== '0'),
  z.union([z.boolean(), z.string(), z.number()]),
);

/** Only the JSON boolean true counts (`reusable_refresh`): a form string never does. */
export const jsonTrue = documentedAs(
  z.unknown().transform((value) => value === true),
  z.boolean(),
);

/** A JSON boolean, or undefined for anything else (the operation's default then applies). */
export const jsonBoolean = documentedAs(
  z.unknown().transform((value) => (typeof value === 'boolean' ? value : undefined)),
  z.boolean(),
);

/** A query value that is a single string; absent, repeated or a bracket map is undefined. */
export const queryText = documentedAs(
  z.unknown().transform((value) => (typeof value === 'string' ? value : undefined)),
  z.string(),
);

/** The last of repeated query values when it is text, else undefined. */
export const lastQueryValue = (raw: RawRequest, name: string): string | undefined => {
  const value = raw.query[name];
  const last = Array.isArray(value) ? (value.at(-1) as unknown) : value;
  return typeof last === 'string' ? last : undefined;
};

/**
 * A text parameter from the query or the JSON body (GET bodies are read when declared, for the
 * localization reads): the query wins; '' when neither holds text.
 */
export const queryOrJsonText = (raw: RawRequest, name: string): string => {
  const fromQuery = lastQueryValue(raw, name);
  if (fromQuery !== undefined) return fromQuery;
  const fromBody = raw.json?.[name];
  return typeof fromBody === 'string' ? fromBody : '';
};

/** `json` of the raw request when the operation requires a JSON object: else `notJson`. */
export const requiredJson = (notJson: () => ServiceError) =>
  z
    .record(z.unknown())
    .optional()
    .transform((json, ctx) => json ?? raise(ctx, notJson));

/**
 * The fields `shape` decodes from a JSON object the operation requires (`notJson` otherwise);
 * fields beyond the shape are ignored. The document lists the shape.
 */
export const requiredJsonFields = <T extends z.ZodRawShape>(notJson: () => ServiceError, shape: T) =>
  documentedAs(requiredJson(notJson).pipe(z.object(shape)), z.object(shape));

/** A field passed on as sent, for a decoder that judges it with others; documented as `standIn`. */
export const sentAsIs = (standIn: z.ZodTypeAny) => documentedAs(z.unknown(), standIn);

/** A body that is only a required JSON object. */
export const jsonObjectBody = (notJson: () => ServiceError) => z.object({ json: requiredJson(notJson) }).transform(({ json }) => json);

/** A path ID of at most nine digits; anything else answers with the operation's not-found. */
export const pathId = (notFound: () => ServiceError, options: { zero?: boolean } = {}) =>
  z.unknown().transform((value, ctx) => {
    const id = String(value ?? '');
    if (!/^\d{1,9}$/.test(id) || (options.zero === false && Number(id) === 0)) return raise(ctx, notFound);
    return Number(id);
  });

/**
 * A path ID the service judges: at most nine digits, else 0, which the service answers with the
 * operation's not-found after its own earlier checks (document 2's order of checks).
 */
export const idOrZero = documentedAs(
  z.unknown().transform((value) => (/^\d{1,9}$/.test(String(value ?? '')) ? Number(value) : 0)),
  z.union([z.number().int(), z.string()]),
);

/**
 * Runs a parser that throws the operation's ServiceError (e.g. the shared page parser), as a
 * schema step: its error becomes the request's answer.
 */
export const parsedWith = <T>(parse: (value: Record<string, unknown>) => T) =>
  z.record(z.unknown()).transform((value, ctx) => {
    try {
      return parse(value);
    } catch (error) {
      if (isServiceError(error)) return raise(ctx, () => error);
      throw error;
    }
  });

/** A paginated list's query: the shared page request (document 1, Conventions). */
export const pageRequest = z.object({ query: parsedWith(parsePageRequest) }).transform(({ query }) => query);
