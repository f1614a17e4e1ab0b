import type { Request } from 'express';

/**
 * The header in which a publisher's server-side plugin forwards its visitor's address when it
 * calls the API on the visitor's behalf. The spec names only "the plugin-forwarded header"
 * (document 2, B); this name is ours (ADR 0031).
 */
export const PLUGIN_FORWARDED_HEADER = 'x-plugin-forwarded-for';

const lastEntry = (value: string | string[] | undefined): string => {
  const joined = Array.isArray(value) ? value.join(',') : (value ?? '');
  return (
    joined
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean)
      .at(-1) ?? ''
  );
};

const withoutMappedPrefix = (address: string): string => address.replace(/^::ffff:(?=\d{1,3}(\.\d{1,3}){3}$)/i, '');

/**
 * The request IP of the localization reads (document 2, B), resolved only here: the last entry
 * of the plugin-forwarded header, else of X-Forwarded-For, else the remote address. With
 * TRUST_PROXY ≥ 1, express's `req.ip` already walks X-Forwarded-For by the trusted hop count;
 * with one hop that is the same last entry, and with more it is the address the operator's
 * proxies vouch for, so it is used whenever a proxy is trusted.
 */
export function resolveRequestIp(req: Request): string {
  const plugin = lastEntry(req.headers[PLUGIN_FORWARDED_HEADER]);
  if (plugin) return withoutMappedPrefix(plugin);
  const forwarded = lastEntry(req.headers['x-forwarded-for']);
  if (forwarded) {
    const trusted = Number(req.app.get('trust proxy') ?? 0);
    return withoutMappedPrefix(trusted >= 1 && req.ip ? req.ip : forwarded);
  }
  return withoutMappedPrefix(req.socket.remoteAddress ?? '');
}
