import type { Country, ListCountriesResponse } from '@masthead/proto/accounts/localization';
import { serializeCountry } from './localization.js';

/** One version of the country records, serialized country by country with `selected` false. */
interface SerializedList {
  version: string;
  countries: Country[];
  json: string[];
}

/**
 * GET /countries' country branch, serialized once per version of the records: the list is about
 * 290 KB of JSON, and only `selected` differs between requests. The gateway sends the version it
 * holds; accounts then leaves the items out and names the selected code.
 */
export class CountryListJson {
  private held: SerializedList | undefined;

  /** The version to send as `known_version` ('' for none). */
  knownVersion(): string {
    return this.held?.version ?? '';
  }

  /**
   * The response body of a country-branch answer, or null when it left the items out for a
   * version no longer held here (another request replaced it meanwhile): ask again without one.
   */
  bodyOf(answer: ListCountriesResponse): string | null {
    if (!answer.unchanged) this.held = serializedList(answer.version, answer.items);
    const list = this.held;
    if (!list || list.version !== answer.version) return null;
    const items = list.json.slice();
    const selected = list.countries.findIndex((country) => country.code === answer.selectedCode);
    if (selected >= 0) items[selected] = JSON.stringify(serializeCountry({ ...list.countries[selected]!, selected: true }));
    return `{"items":[${items.join(',')}]}`;
  }
}

function serializedList(version: string, countries: Country[]): SerializedList {
  return {
    version,
    countries,
    json: countries.map((country) => JSON.stringify(serializeCountry({ ...country, selected: false }))),
  };
}
