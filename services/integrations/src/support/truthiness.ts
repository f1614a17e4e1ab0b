/**
 * "Empty" as the spec's provider rules use it (PHP's `empty()`): absent, null, false, 0, '',
 * '0', and an empty list or map. Any other value is truthy, the text `false` included
 * (document 2 H: "nonempty text such as `false` counts as truthy; use JSON booleans").
 */
export function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '' || value === '0') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

export const isTruthy = (value: unknown): boolean => !isEmptyValue(value);
