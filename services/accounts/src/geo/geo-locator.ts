import { isIP } from 'node:net';
import { TtlCache } from '@masthead/core/cache';
import type { Logger } from '@masthead/core/logging';
import { UNKNOWN_LOCATION, type GeoLocation, type GeoProvider, type InstalledGeoDatabase } from './geo.types.js';

export interface GeoLocatorOptions {
  /** Absent when no provider is configured (GEOINFO_URL empty): the installed database answers. */
  provider: GeoProvider | null;
  database: InstalledGeoDatabase;
  /** How long a provider answer is reused for the same IP (GEOINFO_CACHE_TTL_MS). */
  cacheTtlMs: number;
  /** After a provider failure, how long lookups skip it (GEOINFO_RETRY_AFTER_MS). */
  retryAfterMs: number;
  countryName: (code: string) => string | null;
  logger: Logger;
}

/** Strips the IPv4-mapped prefix (`::ffff:1.2.3.4`) that dual-stack sockets report. */
export const normalizeIp = (ip: string): string => {
  const trimmed = ip.trim();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(trimmed);
  return mapped ? mapped[1]! : trimmed;
};

/**
 * The IP-location lookup of GET /geoinfo and of `selected` in GET /countries: the external
 * provider with a per-IP cache, falling back to the installed database whenever the provider is
 * not configured, fails or is backing off. It never throws: unknown values are null.
 */
export class GeoLocator {
  private readonly cache: TtlCache<string, GeoLocation>;
  private providerDownUntil = 0;

  constructor(private readonly options: GeoLocatorOptions) {
    this.cache = new TtlCache(options.cacheTtlMs);
  }

  async locate(rawIp: string): Promise<GeoLocation> {
    const ip = normalizeIp(rawIp);
    // No format validation at the API (document 2, B), but a text that is no IP cannot be
    // located: no provider call is spent on it.
    if (!isIP(ip)) return UNKNOWN_LOCATION;
    const { provider } = this.options;
    if (provider) {
      // Answers already cached stay valid while the provider is backing off.
      const cached = this.cache.get(ip);
      if (cached) return cached;
      if (Date.now() >= this.providerDownUntil) {
        try {
          return await this.cache.getOrLoad(ip, () => this.fromProvider(provider, ip));
        } catch (error) {
          this.providerDownUntil = Date.now() + this.options.retryAfterMs;
          this.options.logger.warn({ err: error, provider: provider.name }, 'geo provider failed; using the installed database');
        }
      }
    }
    return this.options.database.locate(ip);
  }

  private async fromProvider(provider: GeoProvider, ip: string): Promise<GeoLocation> {
    const found = await provider.locate(ip);
    return {
      country: found.country ?? (found.countryCode ? this.options.countryName(found.countryCode) : null),
      countryCode: found.countryCode,
      // Kept on purpose: the spec says `state` is null on the external branch (document 2, B),
      // even where the provider names a region.
      state: null,
      city: found.city,
    };
  }
}
