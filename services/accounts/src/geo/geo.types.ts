/** What an IP lookup found; every unknown value is null. */
export interface GeoLocation {
  country: string | null;
  countryCode: string | null;
  state: string | null;
  city: string | null;
}

export const UNKNOWN_LOCATION: GeoLocation = Object.freeze({ country: null, countryCode: null, state: null, city: null });

/**
 * An external IP-location provider. `locate` rejects when the provider cannot answer (network,
 * timeout, HTTP error, an error body, an answer without a country); the caller falls back.
 */
export interface GeoProvider {
  readonly name: string;
  locate(ip: string): Promise<GeoLocation>;
}

/** The installed database: synchronous answers, never throws (unknown → UNKNOWN_LOCATION). */
export interface InstalledGeoDatabase {
  locate(ip: string): Promise<GeoLocation>;
}
