import { ServiceError } from '@masthead/core/errors';
import type { z } from 'zod';

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * Validates an operator command built from a gRPC request. Field names in errors are the proto's
 * (snake_case); the code names the first bad field (`invalid_price`), `fields` lists them all.
 */
export function parseCommand<Schema extends z.ZodTypeAny>(schema: Schema, input: unknown): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data as z.output<Schema>;
  const fields: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const field = issue.path.map(String).map(snakeCase).join('.') || 'request';
    fields[field] ??= issue.message;
  }
  const [field, message] = Object.entries(fields)[0] ?? ['request', 'invalid request'];
  throw new ServiceError({ status: 400, code: `invalid_${field}`, description: message, fields });
}
