import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { planNotFound } from '@masthead/core/errors';
import { refreshRequest } from '../src/handlers/sessions.js';
import { languagesRequest } from '../src/handlers/localization.js';
import { z } from 'zod';
import { decodeRequest, fromFields, fromParams, pathId, rawRequestOf } from '../src/http/request.js';

const raw = (parts: { query?: Record<string, unknown>; params?: Record<string, string>; decoded?: Request['decoded'] }) =>
  rawRequestOf({
    query: parts.query ?? {},
    params: parts.params ?? {},
    decoded: parts.decoded ?? { json: undefined, form: undefined, malformed: false },
  } as unknown as Request);

/** Per-route request schemas: the spec's quirks decoded in one place (http/request.ts). */
describe('request schemas', () => {
  it('decodes the refresh body: form wins, only a JSON true keeps the record, flags are truthy', () => {
    const input = decodeRequest(
      refreshRequest,
      raw({
        decoded: {
          json: { refresh_token: 'json', reusable_refresh: true, with_idp_token: 0 },
          form: { refresh_token: 'form', with_has_resource_password: '1' },
          malformed: false,
        },
      }),
    );
    expect(input).toEqual({
      refresh_token: 'form',
      response_type: '',
      reusable_refresh: true,
      redirect_uri: '',
      with_has_resource_password: true,
      with_idp_token: false,
      with_idp_custom_token: false,
    });
    const fromForm = decodeRequest(
      refreshRequest,
      raw({ decoded: { json: undefined, form: { reusable_refresh: 'true' }, malformed: false } }),
    );
    expect(fromForm.reusable_refresh).toBe(false);
  });

  it('answers a bad path ID with the operation own error', () => {
    const schema = fromParams({ id: pathId(planNotFound) });
    expect(decodeRequest(schema, raw({ params: { id: '12' } }))).toEqual({ id: 12 });
    expect(() => decodeRequest(schema, raw({ params: { id: '1x' } }))).toThrow(
      expect.objectContaining({ status: 404, code: 'plan_not_found' }),
    );
  });

  it('casts the page of GET /languages to an integer and still refuses text', () => {
    expect(decodeRequest(languagesRequest, raw({ query: { page: '2.5' } })).page).toBe(2);
    expect(() => decodeRequest(languagesRequest, raw({ query: { page: 'two' } }))).toThrow(
      expect.objectContaining({ status: 409, fields: { page: expect.any(String) } }),
    );
  });

  it('answers an issue no route maps with a 400 naming the wire field (the shared zod adapter)', () => {
    const schema = fromFields({ email: z.string() });
    expect(() => decodeRequest(schema, raw({}))).toThrow(expect.objectContaining({ status: 400, code: 'invalid_email' }));
  });
});
