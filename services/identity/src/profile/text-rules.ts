/**
 * Unicode rules shared by the profile fields (docs/adr/0060). Pure functions: no IO.
 */

/** A UTF-16 surrogate without its pair cannot be stored as UTF-8; JSON can still carry one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u;
/**
 * What a one-line field cannot hold (docs/adr/0082): C0 and C1 controls with NUL and DEL (tab
 * and newlines are controls too here); the line and paragraph separators U+2028/2029, which break
 * lines like a newline; and the bidi embeddings, overrides and isolates (U+202A-202E,
 * U+2066-2069), which reorder what follows them on screen (CVE-2021-42574). Other format
 * characters stay: ZWNJ/ZWJ spell Persian and Indic names, LRM/RLM mark direction in place.
 */
const CONTROL = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

/** True when UTF-8 cannot hold the text as sent. */
export const hasLoneSurrogate = (value: string): boolean => LONE_SURROGATE.test(value);

/** Why a one-line text cannot be stored, or null when it can. */
export function textProblem(value: string): string | null {
  if (hasLoneSurrogate(value)) return 'must be valid Unicode text';
  if (CONTROL.test(value)) return 'must not contain control characters';
  return null;
}

/** Length as a reader counts it: code points, not UTF-16 units. */
export const codePointLength = (value: string): number => [...value].length;

/** Everything but letters, marks, digits and `_ . -`: emoji, spaces, bidi and zero-width controls. */
const NOT_NICK_CHARACTER = /[^\p{L}\p{M}\p{N}_.-]/gu;
const LEADING_MARKS = /^\p{M}+/u;

/**
 * The spec's "normalized" nick name: NFKC (so look-alike compatibility forms collapse), then
 * filtered to letters, combining marks, digits and `_ . -` (lone surrogates, NUL, emoji, RTL
 * overrides and spaces go), with no combining mark left at the start. Case is kept for display.
 */
export function normalizeNickName(raw: string): string {
  const wellFormed = raw.replace(new RegExp(LONE_SURROGATE.source, 'gu'), '');
  return wellFormed.normalize('NFKC').replace(NOT_NICK_CHARACTER, '').replace(LEADING_MARKS, '');
}

/** Uniqueness ignores case: "Ada" and "ada" are one nick name. */
export const nickNameKey = (normalized: string): string => normalized.toLowerCase().normalize('NFKC');

/** A tag's slug: trimmed, NFKC, lower case, inner white space as one `-`. */
export const tagSlug = (raw: string): string => raw.trim().normalize('NFKC').toLowerCase().replace(/\s+/gu, '-');
