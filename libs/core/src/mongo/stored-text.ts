/**
 * Whether `value` can be stored and looked up: PostgreSQL's text holds no NUL (U+0000), so
 * FerretDB on PostgreSQL fails a query or write that carries one (a 500 the fuzz suite found).
 * A lookup key with a NUL matches nothing stored: callers answer it as not found.
 */
export const isStorableText = (value: string): boolean => !value.includes('\u0000');

/** The field error of a text to be stored that holds a NUL. */
export const unstorableText = (field: string): string => `${field} must not contain a NUL character`;
