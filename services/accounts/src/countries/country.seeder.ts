import type { Logger } from '@masthead/core/logging';
import { mergeCountry, type CountryFields } from './country.merge.js';
import type { CountryRepository } from './country.repository.js';
import { countryIdOf, loadCountrySource, type SourceCountry } from './country.source.js';

export interface SeedReport {
  inserted: number;
  updated: number;
  deleted: number;
}

/**
 * Loads the packaged countries into the database at boot, idempotently: unchanged countries
 * are not written, changed ones keep their IDs and their states' IDs (country.merge.ts), and
 * countries the package no longer lists are removed. Replicas booting together compute the same
 * rows from the same package, so their writes agree.
 */
export async function seedCountries(
  repository: CountryRepository,
  logger: Logger,
  source: readonly SourceCountry[] = loadCountrySource(),
): Promise<SeedReport> {
  const stored = new Map((await repository.all()).map((country) => [country._id, country]));
  const now = new Date();
  const inserts: CountryFields[] = [];
  const updates: CountryFields[] = [];
  const seen = new Set<number>();
  for (const country of source) {
    const id = countryIdOf(country.code);
    seen.add(id);
    const existing = stored.get(id);
    const merged = mergeCountry(existing, country);
    if (merged) (existing ? updates : inserts).push(merged);
  }
  const removed = [...stored.keys()].filter((id) => !seen.has(id));
  await repository.insertMany(inserts, now);
  for (const country of updates) await repository.update(country, now);
  await repository.delete(removed);
  const report = { inserted: inserts.length, updated: updates.length, deleted: removed.length };
  if (report.inserted + report.updated + report.deleted > 0) logger.info(report, 'country reference data seeded');
  return report;
}
