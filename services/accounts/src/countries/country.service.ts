import { createHash } from 'node:crypto';
import { TtlCache } from '@masthead/core/cache';
import type { CountryRecord } from './country.schema.js';
import type { CountryRepository } from './country.repository.js';

export interface CountryView {
  id: number;
  code: string;
  title: string;
  sort: number;
  selected: boolean;
  states: Array<{ id: number; code: string; title: string; countryId: number }>;
}

export type CountryList =
  | {
      grouped: false;
      /** The records, or null when the caller's `knownVersion` is current. */
      items: CountryView[] | null;
      version: string;
      selectedCode: string;
    }
  | { grouped: true; titles: string[] };

export interface CountryListRequest {
  /** 0 when the request named no resource. */
  resourceId: number;
  real: boolean;
  /** The resolved request IP. */
  ip: string;
  /** The records' version the caller holds ('' for none). */
  knownVersion?: string;
}

/** Ports to what this domain does not own. */
export interface CountryDeps {
  countries: CountryRepository;
  /** The resource's settings (the resource is already validated by the gateway). */
  resourceSettings: (resourceId: number) => Promise<Record<string, unknown>>;
  /** The distinct country texts of all users (identity). */
  userCountries: () => Promise<{ countries: string[]; hasUnset: boolean }>;
  /** The IP-location country code of an IP, or null. */
  countryCodeOf: (ip: string) => Promise<string | null>;
  /** How long the lists are kept in memory (LOCALIZATION_CACHE_TTL_MS; 0 = not at all). */
  cacheTtlMs: number;
}

/** Document 2, B: the country of users who left theirs empty. */
export const COUNTRY_NOT_SET = 'Country not set';
/** Document 2, B: `selected` falls back to this code when the IP cannot be located. */
export const FALLBACK_COUNTRY = 'US';

const byTitle = new Intl.Collator('en', { sensitivity: 'base' });

/** A setting or flag given as JSON true, 1, or the text "true" / "1". */
export const isTruthySetting = (value: unknown): boolean =>
  value === true || value === 1 || (typeof value === 'string' && ['true', '1'].includes(value.trim().toLowerCase()));

const upperFirst = (text: string): string => (text ? text.charAt(0).toUpperCase() + text.slice(1) : text);

/** The records in list order, and a digest of them that every replica computes alike. */
interface CountryRecords {
  records: CountryRecord[];
  version: string;
}

export class CountryService {
  private readonly records: TtlCache<'all', CountryRecords>;
  private readonly grouped: TtlCache<'all', string[]>;

  constructor(private readonly deps: CountryDeps) {
    this.records = new TtlCache(deps.cacheTtlMs, 1);
    this.grouped = new TtlCache(deps.cacheTtlMs, 1);
  }

  async list(request: CountryListRequest): Promise<CountryList> {
    if (
      request.resourceId > 0 &&
      (request.real || isTruthySetting((await this.deps.resourceSettings(request.resourceId))['use_group_users_country']))
    ) {
      return { grouped: true, titles: await this.grouped.getOrLoad('all', () => this.loadGrouped()) };
    }
    const [{ records, version }, located] = await Promise.all([
      this.records.getOrLoad('all', () => this.loadRecords()),
      this.deps.countryCodeOf(request.ip),
    ]);
    const selected = located ?? FALLBACK_COUNTRY;
    if (request.knownVersion === version) return { grouped: false, items: null, version, selectedCode: selected };
    return {
      grouped: false,
      version,
      selectedCode: selected,
      items: records.map((record) => ({
        id: record._id,
        code: record.code,
        title: record.title,
        sort: record.sort,
        selected: record.code === selected,
        states: record.states.map((state) => ({ id: state.id, code: state.code, title: state.title, countryId: record._id })),
      })),
    };
  }

  /** Order of document 2, B: sort DESC, title ASC (ID last, so equal titles keep one order). */
  private async loadRecords(): Promise<CountryRecords> {
    const records = (await this.deps.countries.all()).sort(
      (left, right) => right.sort - left.sort || byTitle.compare(left.title, right.title) || left._id - right._id,
    );
    const content = records.map(({ _id, code, title, sort, states }) => [
      _id,
      code,
      title,
      sort,
      states.map(({ id, code, title }) => [id, code, title]),
    ]);
    return { records, version: createHash('sha256').update(JSON.stringify(content)).digest('base64url').slice(0, 22) };
  }

  /**
   * Document 2, B: all users' country texts across resources; a falsey country becomes
   * "Country not set"; first letter upper-cased. Texts that become equal are listed once.
   */
  private async loadGrouped(): Promise<string[]> {
    const { countries, hasUnset } = await this.deps.userCountries();
    const titles = new Set<string>();
    if (hasUnset) titles.add(COUNTRY_NOT_SET);
    for (const country of countries) titles.add(country.trim() ? upperFirst(country.trim()) : COUNTRY_NOT_SET);
    return [...titles];
  }
}
