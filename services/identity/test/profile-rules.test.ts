import { ServiceError } from '@masthead/core/errors';
import { describe, expect, it } from 'vitest';
import { changedOptIns } from '../src/profile/marketing-opt-ins.js';
import { parseBody, parseProfileChanges } from '../src/profile/profile-changes.js';
import { nickNameKey, normalizeNickName, tagSlug, textProblem } from '../src/profile/text-rules.js';

/** The pure rules of PUT /user (docs/adr/0060); the HTTP behaviour is in tests/e2e/test/profile.test.ts. */
describe('nick name normalization', () => {
  it.each([
    ['  Ada_Lovelace ', 'Ada_Lovelace'],
    ['ada lovelace', 'adalovelace'],
    ['Ｆｕｌｌｗｉｄｔｈ', 'Fullwidth'],
    ['e\u0301cole', '\u00e9cole'], // NFKC composes the mark
    ['\u0301\u0301abc', 'abc'],
    ['a😀b👍🏽c', 'abc'],
    ['\u202eevil\u202c', 'evil'],
    ['zero\u200bwidth', 'zerowidth'],
    ['nul\u0000byte', 'nulbyte'],
    ['lone\ud800surrogate\udc00', 'lonesurrogate'],
    ['שלום_עולם', 'שלום_עולם'],
    ['مرحبا', 'مرحبا'],
    ['名前.test-1', '名前.test-1'],
  ])('%j → %j', (raw, normalized) => {
    expect(normalizeNickName(raw)).toBe(normalized);
  });

  it('compares nick names without case', () => {
    expect(nickNameKey('Ada_Lovelace')).toBe(nickNameKey('ADA_lovelace'));
    expect(nickNameKey('Straße')).toBe('straße');
  });
});

describe('text rules', () => {
  it('refuses lone surrogates and control characters, accepts paired emoji and marks', () => {
    expect(textProblem('ok 😀 e\u0301')).toBeNull();
    expect(textProblem('bad\ud800')).toBe('must be valid Unicode text');
    expect(textProblem('\udc00bad')).toBe('must be valid Unicode text');
    expect(textProblem('nul\u0000')).toBe('must not contain control characters');
    expect(textProblem('tab\there')).toBe('must not contain control characters');
    for (const unsafe of ['del\u007f', 'c1\u0085', 'line\u2028two', 'para\u2029two', '\u202eesrever', 'iso\u2066late\u2069']) {
      expect(textProblem(unsafe), JSON.stringify(unsafe)).toBe('must not contain control characters');
    }
    // Joiners spell Persian and Indic words; direction marks do not reorder.
    expect(textProblem('می\u200cخواهم \u0915\u094d\u200d\u0937 Ada\u200f')).toBeNull();
  });

  it('makes tag slugs from trimmed, lower-cased, hyphenated text', () => {
    expect(tagSlug('  History of  Computing ')).toBe('history-of-computing');
    expect(tagSlug('ＡＢＣ')).toBe('abc');
  });
});

describe('parseProfileChanges', () => {
  const fieldsOf = (body: Record<string, unknown>) => {
    try {
      parseProfileChanges(body);
    } catch (error) {
      if (error instanceof ServiceError) return error.fields;
      throw error;
    }
    return undefined;
  };

  it('reads the table: trimmed texts, empty clears, null and omission leave unchanged', () => {
    expect(parseProfileChanges({ first_name: ' Ada ', city: '  ', last_name: null, zip: undefined })).toEqual({
      text: { first_name: 'Ada', city: null },
    });
  });

  it('keeps language_id and language_slug apart (the service applies the slug last)', () => {
    expect(parseProfileChanges({ language_id: 83, language_slug: ' FR ' })).toMatchObject({ languageId: 83, languageSlug: 'fr' });
    expect(parseProfileChanges({ language_id: '83' })).toMatchObject({ languageId: 83 });
    expect(parseProfileChanges({ language_id: null, language_slug: '' })).toEqual({ text: {} });
    expect(fieldsOf({ language_id: 1.5 })).toEqual({ language_id: 'must be a language ID' });
    expect(fieldsOf({ language_id: -3 })).toEqual({ language_id: 'must be a language ID' });
  });

  it('takes tags only from an array, de-duplicated in order', () => {
    expect(parseProfileChanges({ tags: ['Beta', 'alpha', 'beta'] }).tags).toEqual(['beta', 'alpha']);
    expect(parseProfileChanges({ tags: [] }).tags).toEqual([]);
    expect(parseProfileChanges({ tags: 'alpha' }).tags).toBeUndefined();
    expect(fieldsOf({ tags: ['ab'] })).toEqual({ tags: 'each tag is a string of 3 to 25 characters' });
    expect(fieldsOf({ tags: Array.from({ length: 101 }, (_, i) => `tag-${i}`) })).toEqual({ tags: 'at most 100 tags' });
  });

  it('refuses email unless null, and nick names outside 3 to 64 after filtering', () => {
    expect(fieldsOf({ email: '' })).toEqual({ email: 'cannot be changed here; use PUT /user/email' });
    expect(fieldsOf({ email: null })).toBeUndefined();
    expect(parseProfileChanges({ nick_name: null }).nickName).toBeNull();
    expect(fieldsOf({ nick_name: 'a😀😀😀b' })).toEqual({ nick_name: 'must have 3 to 64 letters, digits or _ . - after filtering' });
    expect(parseProfileChanges({ nick_name: `${'n'.repeat(64)}😀` }).nickName).toBe('n'.repeat(64));
  });

  it('refuses extra that MongoDB or UTF-8 cannot store, and too much of it', () => {
    expect(fieldsOf({ extra: { 'a.b': 1 } })).toEqual({ extra: 'keys are 1 to 64 letters, digits, _ or -' });
    expect(fieldsOf(JSON.parse('{"extra": {"__proto__": {"x": 1}}}') as Record<string, unknown>)).toEqual({
      extra: 'keys are 1 to 64 letters, digits, _ or -',
    });
    expect(fieldsOf(JSON.parse('{"extra": {"a": {"__proto__": 1}}}') as Record<string, unknown>)).toEqual({
      extra: 'nested keys must not be empty, start with $ or contain dots',
    });
    expect(fieldsOf({ extra: { a: { '': 1 } } })).toEqual({ extra: 'nested keys must not be empty, start with $ or contain dots' });
    expect(fieldsOf({ extra: { a: [{ $gt: 1 }] } })).toEqual({ extra: 'nested keys must not be empty, start with $ or contain dots' });
    expect(fieldsOf({ extra: { a: 'x\ud800' } })).toEqual({ extra: 'must be valid Unicode text' });
    expect(fieldsOf({ extra: { a: 'x'.repeat(70_000) } })).toEqual({ extra: 'at most 65536 bytes' });
    expect(parseProfileChanges({ extra: { note: 'two\nlines' } }).extra).toEqual({ note: 'two\nlines' });
  });

  it('refuses a body that is not a JSON object', () => {
    for (const text of ['', '[]', '"x"', 'null', '{']) expect(() => parseBody(text)).toThrow('The body must be a JSON object');
    expect(parseBody('{"a":1}')).toEqual({ a: 1 });
  });
});

describe('marketing opt-ins', () => {
  it('are boolean extra keys named marketing… or newsletter…, reported only when changed', () => {
    expect(
      changedOptIns(
        { newsletter: true, marketing_sms: false },
        { newsletter: true, marketing_sms: true, newsletter_weekly: false, marketingish: true, marketing: 'yes', other: true },
      ),
    ).toEqual({ marketing_sms: true, newsletter_weekly: false });
  });
});
