import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { bodyFields } from '../src/http/body.js';
import { text } from '../src/http/request.js';

const requestWith = (decoded: Request['decoded']) => ({ decoded }) as Request;

describe('body fields', () => {
  it('lets form fields win over JSON fields of the same name', () => {
    const req = requestWith({ json: { email: 'json@x.test', password: 'from-json' }, form: { email: 'form@x.test' }, malformed: false });
    expect(bodyFields(req)).toEqual({ email: 'form@x.test', password: 'from-json' });
  });

  it('ignores a JSON body that is not an object', () => {
    expect(bodyFields(requestWith({ json: ['a'], form: undefined, malformed: false }))).toEqual({});
    expect(bodyFields(requestWith({ json: 'text', form: undefined, malformed: false }))).toEqual({});
  });

  it('reads a field of another type as missing', () => {
    expect(text.parse(['a@b.test'])).toBe('');
    expect(text.parse(5)).toBe('');
    expect(text.parse('a@b.test')).toBe('a@b.test');
  });
});
