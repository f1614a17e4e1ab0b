import { z } from 'zod';

/**
 * What the OpenAPI document shows for a request schema that zod-to-json-schema cannot see into
 * (docs/adr/0208): a decoder of the spec's quirks is a transform of `unknown`, and a field list
 * read from one source of the raw request is a transform of a custom type. Each names a plain zod
 * schema that stands for it in the document; decoding never uses it.
 */
const standIns = new WeakMap<object, z.ZodTypeAny>();

/** `schema`, documented as `standIn`. */
export function documentedAs<S extends z.ZodTypeAny>(schema: S, standIn: z.ZodTypeAny): S {
  standIns.set(schema._def, standIn);
  return schema;
}

/** The stand-in of a schema definition, if it has one. */
export const standInOf = (definition: object): z.ZodTypeAny | undefined => standIns.get(definition);

/** The document of a JSON body with `fields`, for a decoder that reads them by hand. */
export const jsonBodyDocument = (fields: z.ZodRawShape) => z.object({ json: z.object(fields) });
