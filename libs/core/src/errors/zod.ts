import type { z } from 'zod';
import { invalidField, invalidRequestField } from './common.js';
import type { FieldErrors, ServiceError } from './service-error.js';

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * The field a zod issue is about, spelled as the wire spells it: object keys in snake_case,
 * joined with dots (`billing.country_code`). Array indices are dropped, since the wire field is
 * the list (`grants`, not `grants.0`); an issue about the whole input is `request`.
 */
export const zodFieldPath = (path: ReadonlyArray<string | number>): string =>
  path
    .filter((segment): segment is string => typeof segment === 'string')
    .map(snakeCase)
    .join('.') || 'request';

/**
 * A failed zod parse as a ServiceError: `invalid_<first bad field>` with that field's message as
 * the description, and every bad field in `fields` (the first message per field wins). Status
 * 400 suits operator commands built from gRPC requests; pass 409 for the spec's field validation.
 */
export function zodError(error: z.ZodError, status: 400 | 409 = 400): ServiceError {
  const fields: FieldErrors = {};
  for (const issue of error.issues) fields[zodFieldPath(issue.path)] ??= issue.message;
  const [field, message] = Object.entries(fields)[0] ?? ['request', 'invalid request'];
  return (status === 409 ? invalidRequestField : invalidField)(field, message, fields);
}

/** Parses `input` with `schema`, or throws {@link zodError} naming the bad fields. */
export function parseOrThrow<Schema extends z.ZodTypeAny>(schema: Schema, input: unknown, status: 400 | 409 = 400): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data as z.output<Schema>;
  throw zodError(result.error, status);
}
