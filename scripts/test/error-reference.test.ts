// The error catalogue holds by itself (ADR 0108): every code a caller can receive is a catalogue
// entry, and docs/errors.md is generated from the catalogues, never edited by hand.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { readErrors, renderReference, REFERENCE, ROOT } from '../error-reference.mjs';

interface Raise {
  file: string;
  line: number;
  status?: number;
  code?: string;
  description?: string;
}
interface Entry extends Raise {
  name: string;
  when: string;
}

/** Where catalogue entries may live: a domain's `*.errors.ts`, core's shared codes, the gateway's errors folder. */
const CATALOGUE_FILE = /(\.errors\.ts$)|(^libs\/core\/src\/errors\/common\.ts$)|(^gateway\/src\/errors\/[^/]+\.ts$)/;

const errors = readErrors() as { entries: Entry[]; inline: Raise[]; problems: string[] };
const where = (raise: Raise) => `${raise.file}:${raise.line} ${raise.code ?? '<computed>'}`;

describe('error catalogue', () => {
  it('has literal entries, each with a JSDoc line saying when it is thrown', () => {
    expect(errors.problems).toEqual([]);
    expect(errors.entries.length).toBeGreaterThan(50);
  });

  it('raises no error built in place: every raise names a catalogue entry', () => {
    expect(errors.inline.map(where)).toEqual([]);
  });

  it('keeps its entries in catalogue files, under names that are unique across the tree', () => {
    expect(errors.entries.filter((entry) => !CATALOGUE_FILE.test(entry.file)).map((entry) => `${entry.file} ${entry.name}`)).toEqual([]);
    const names = errors.entries.map((entry) => entry.name);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
  });

  it('defines each (code, status, description) once', () => {
    const keys = errors.entries.map((entry) => `${entry.code} ${entry.status} ${entry.description}`);
    expect(keys.filter((key, index) => keys.indexOf(key) !== index)).toEqual([]);
  });

  it('is documented by a docs/errors.md that is up to date (run `node scripts/error-reference.mjs`)', () => {
    expect(readFileSync(join(ROOT as string, REFERENCE as string), 'utf8')).toBe(renderReference(readErrors()));
  });
});
