import { createRequire } from 'node:module';
import { z } from 'zod';

/**
 * The country and state reference data: `country-region-data` (MIT), a maintained list of the
 * ISO 3166-1 countries with their first-level regions, made for address forms. Its `data.json`
 * is read rather than its module build, whose tuples carry the text "undefined" where a region
 * has no short code (measured on 4.1.0). Parsed here so that a changed package shape fails at
 * boot, not in a request.
 */
const sourceSchema = z.array(
  z.object({
    countryName: z.string().min(1),
    countryShortCode: z.string().regex(/^[A-Z]{2}$/),
    regions: z.array(z.object({ name: z.string().min(1), shortCode: z.string().optional() })),
  }),
);

export const COUNTRY_SOURCE = 'country-region-data';

export interface SourceState {
  /** The region's short code; empty where the package has none (179 regions in 4.1.0). */
  code: string;
  title: string;
}

export interface SourceCountry {
  code: string;
  title: string;
  states: SourceState[];
}

const require = createRequire(import.meta.url);

/** The package's countries in its own order; loaded once per process. */
export const loadCountrySource = (() => {
  let cached: SourceCountry[] | undefined;
  return (): SourceCountry[] => {
    cached ??= sourceSchema.parse(require(`${COUNTRY_SOURCE}/data.json`)).map((country) => ({
      code: country.countryShortCode,
      title: country.countryName,
      states: country.regions.map((region) => ({ code: region.shortCode?.trim() ?? '', title: region.name })),
    }));
    return cached;
  };
})();

let names: Map<string, string> | undefined;

/** English name of an ISO 3166-1 alpha-2 code, or null when unknown. */
export function countryNameOf(code: string): string | null {
  names ??= new Map(loadCountrySource().map((country) => [country.code, country.title]));
  return names.get(code.trim().toUpperCase()) ?? null;
}

/**
 * A country's ID is derived from its alpha-2 code (AA = 1 … ZZ = 676), so every process and
 * every restart gives the same country the same ID without a counter, and package upgrades never
 * renumber. Codes are unique in ISO 3166-1, so IDs are too.
 */
export function countryIdOf(code: string): number {
  const [first, second] = [code.charCodeAt(0) - 65, code.charCodeAt(1) - 65];
  if (code.length !== 2 || first < 0 || first > 25 || second < 0 || second > 25) throw new Error(`not an alpha-2 code: ${code}`);
  return first * 26 + second + 1;
}

/**
 * States are numbered within their country: `countryId * 1000 + n`, n from 1 (the largest country
 * in the package has 217 regions). The seeder keeps the number a state was first given.
 */
export const STATES_PER_COUNTRY = 1000;
