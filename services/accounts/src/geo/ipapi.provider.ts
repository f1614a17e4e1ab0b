import { z } from 'zod';
import type { GeoLocation, GeoProvider } from './geo.types.js';

/**
 * The ipapi.co JSON API (`GET {base}/{ip}/json/`, optional `key` query parameter on paid
 * plans). Any server that answers the same shape works, which is how tests run it against a
 * local HTTP server. An error answer is `{error: true, reason}` with status 200 or 4xx.
 */
const answerSchema = z
  .object({
    error: z.boolean().optional(),
    reason: z.string().optional(),
    country_code: z.string().nullish(),
    country_name: z.string().nullish(),
    region: z.string().nullish(),
    city: z.string().nullish(),
  })
  .passthrough();

export interface IpapiOptions {
  /** Base URL, e.g. https://ipapi.co (GEOINFO_URL). */
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
}

const text = (value: string | null | undefined): string | null => (value && value.trim() ? value.trim() : null);

export class IpapiProvider implements GeoProvider {
  readonly name = 'ipapi';

  constructor(private readonly options: IpapiOptions) {}

  async locate(ip: string): Promise<GeoLocation> {
    const url = new URL(
      `${encodeURIComponent(ip)}/json/`,
      this.options.baseUrl.endsWith('/') ? this.options.baseUrl : `${this.options.baseUrl}/`,
    );
    if (this.options.apiKey) url.searchParams.set('key', this.options.apiKey);
    const response = await fetch(url, {
      headers: { accept: 'application/json', 'user-agent': 'masthead-accounts' },
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    if (!response.ok) throw new Error(`geo provider answered HTTP ${response.status}`);
    const answer = answerSchema.parse(await response.json());
    if (answer.error) throw new Error(`geo provider refused the lookup: ${answer.reason ?? 'no reason given'}`);
    const countryCode = text(answer.country_code)?.toUpperCase() ?? null;
    if (!countryCode) throw new Error('geo provider answered without a country');
    return { country: text(answer.country_name), countryCode, state: text(answer.region), city: text(answer.city) };
  }
}
