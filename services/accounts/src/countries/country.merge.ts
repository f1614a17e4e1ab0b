import { countryIdOf, STATES_PER_COUNTRY, type SourceCountry, type SourceState } from './country.source.js';
import type { CountryRecord, StateRecord } from './country.schema.js';

export type CountryFields = Omit<CountryRecord, 'created_at' | 'updated_at'>;

const sameText = (left: string, right: string) => left.localeCompare(right, 'en', { sensitivity: 'accent' }) === 0;

/**
 * The states of a country after a seed: each source state keeps the ID of the stored state it
 * matches (same non-empty code, else same title), so upgrades of the package never renumber
 * what clients stored; a new state takes the country's next number, never a freed one unless
 * the country's range is exhausted. States the package dropped are dropped.
 */
export function mergeStates(countryId: number, stored: readonly StateRecord[], source: readonly SourceState[]): StateRecord[] {
  const unmatched = new Set(stored);
  const take = (predicate: (state: StateRecord) => boolean): StateRecord | undefined => {
    for (const state of unmatched) {
      if (predicate(state)) {
        unmatched.delete(state);
        return state;
      }
    }
    return undefined;
  };
  const matches = source.map((state) => (state.code ? take((candidate) => candidate.code === state.code) : undefined));
  const kept = source.map((state, index) => matches[index] ?? take((candidate) => sameText(candidate.title, state.title)));

  const base = countryId * STATES_PER_COUNTRY;
  const taken = new Set(kept.flatMap((state) => (state ? [state.id - base] : [])));
  let next = Math.max(0, ...stored.map((state) => state.id - base)) + 1;
  const lowestFree = (): number => {
    // A thousand states over one country's lifetime: only then is a dropped state's number reused.
    for (let number = 1; number < STATES_PER_COUNTRY; number++) if (!taken.has(number)) return number;
    throw new Error(`country ${countryId}: no state number left`);
  };
  const allocate = (): number => {
    const number = next < STATES_PER_COUNTRY ? next++ : lowestFree();
    taken.add(number);
    return base + number;
  };
  return source.map((state, index) => ({ id: kept[index]?.id ?? allocate(), code: state.code, title: state.title }));
}

/** The stored form of a source country, or null when the stored one is already equal. */
export function mergeCountry(stored: CountryFields | undefined, source: SourceCountry): CountryFields | null {
  const id = countryIdOf(source.code);
  const merged: CountryFields = {
    _id: id,
    code: source.code,
    title: source.title,
    sort: stored?.sort ?? 0,
    states: mergeStates(id, stored?.states ?? [], source.states),
  };
  if (stored && sameCountry(stored, merged)) return null;
  return merged;
}

function sameCountry(left: CountryFields, right: CountryFields): boolean {
  return (
    left.code === right.code &&
    left.title === right.title &&
    left.states.length === right.states.length &&
    left.states.every((state, index) => {
      const other = right.states[index];
      return other !== undefined && state.id === other.id && state.code === other.code && state.title === other.title;
    })
  );
}
