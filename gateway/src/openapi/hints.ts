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

/** The card-provider objects a request can name by ID (docs/adr/0230): billing accepts only the caller's own. */
export type ProviderObjectKind = 'customer' | 'payment_method' | 'setup_intent' | 'token';

const providerObjectKinds = new WeakMap<object, ProviderObjectKind>();

/**
 * A request field that holds the ID of a card-provider object of `kind`, documented as one the
 * caller must own; `base` when the field has rules of its own (a pattern).
 */
export function providerIdField(kind: ProviderObjectKind, base: z.ZodString = z.string()): z.ZodString {
  const field = base.describe(`ID of a card-provider ${kind.replace('_', ' ')} of the caller's own`);
  providerObjectKinds.set(field._def, kind);
  return field;
}

/** A provider-ID field of a request: where it is (`['json', 'setup_intent', 'payment_method']`) and what it names. */
export interface ProviderIdField {
  path: string[];
  kind: ProviderObjectKind;
}

/**
 * The provider-ID fields a request schema documents (providerIdField), found through its stand-in:
 * the route table's own statement of which requests name card-provider objects, which the
 * ownership tests walk (tests/e2e/test/provider-ids.test.ts).
 */
export function providerIdFields(schema: z.ZodTypeAny | undefined): ProviderIdField[] {
  const found: ProviderIdField[] = [];
  const walk = (node: z.ZodTypeAny, path: string[]): void => {
    const kind = providerObjectKinds.get(node._def);
    if (kind) return void found.push({ path, kind });
    const standIn = standInOf(node._def);
    if (standIn) return walk(standIn, path);
    if (node instanceof z.ZodObject) {
      for (const [key, child] of Object.entries(node.shape as z.ZodRawShape)) walk(child, [...path, key]);
    } else if (node instanceof z.ZodOptional || node instanceof z.ZodNullable) walk(node.unwrap() as z.ZodTypeAny, path);
    else if (node instanceof z.ZodArray) walk(node.element as z.ZodTypeAny, [...path, '0']);
    else if (node instanceof z.ZodEffects) walk(node.innerType() as z.ZodTypeAny, path);
    else if (node instanceof z.ZodUnion) for (const option of node.options as z.ZodTypeAny[]) walk(option, path);
  };
  if (schema) walk(schema, []);
  return found;
}
