import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { parseOrThrow, zodError, zodFieldPath } from '../src/errors/index.js';
import { serviceErrorOf } from './service-error.js';

const command = z.object({
  resourceId: z.number().int().positive('resource_id must be a positive integer'),
  billing: z.object({ countryCode: z.string().length(2, 'two letters') }),
  grants: z.array(z.string().startsWith('GET', 'GET only')),
});

describe('zod adapter', () => {
  it('returns the parsed value when the input is valid', () => {
    const input = { resourceId: 3, billing: { countryCode: 'DE' }, grants: ['GET /x'] };
    expect(parseOrThrow(command, input)).toEqual(input);
  });

  it('names the first bad field in the code and lists every bad field by its snake_case dotted path', () => {
    const error = serviceErrorOf(() => parseOrThrow(command, { resourceId: 0, billing: { countryCode: 'DEU' }, grants: ['PUT /x'] }));
    expect(error.toJSON()).toEqual({
      status: 400,
      code: 'invalid_resource_id',
      description: 'resource_id must be a positive integer',
      fields: {
        resource_id: 'resource_id must be a positive integer',
        'billing.country_code': 'two letters',
        grants: 'GET only',
      },
    });
  });

  it('reports an array element as its list, and the first message per field wins', () => {
    const error = serviceErrorOf(() => parseOrThrow(command, { resourceId: 1, billing: { countryCode: 'DE' }, grants: ['a', 'b'] }));
    expect(error.code).toBe('invalid_grants');
    expect(error.fields).toEqual({ grants: 'GET only' });
  });

  it('names a nested field by its full path in the code', () => {
    const error = serviceErrorOf(() => parseOrThrow(command, { resourceId: 1, billing: { countryCode: '' }, grants: [] }));
    expect(error.code).toBe('invalid_billing.country_code');
  });

  it('calls an issue about the whole input `request` and takes the status it is given', () => {
    const refined = z.object({ a: z.number().optional() }).refine((value) => value.a !== undefined, 'a is required');
    const error = zodError(refined.safeParse({}).error!, 409);
    expect(error.toJSON()).toEqual({
      status: 409,
      code: 'invalid_request',
      description: 'a is required',
      fields: { request: 'a is required' },
    });
    expect(zodFieldPath([])).toBe('request');
    expect(zodFieldPath(['items', 2, 'unitPrice'])).toBe('items.unit_price');
  });
});
