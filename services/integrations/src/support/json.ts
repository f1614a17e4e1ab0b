export type Json = Record<string, unknown>;

/** A provider value as text: strings as they are, numbers spelled, absent as ''. */
export const text = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);

/** A JSON object as a record; anything else is `{}`. */
export const asObject = (value: unknown): Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
