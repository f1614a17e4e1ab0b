import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may go (docs/adr/0240): public unicast addresses, and loopback ones only where
 * the policy allows (development and test, for local receivers). Private, link-local,
 * unique-local, carrier-grade NAT, multicast, reserved and metadata addresses never.
 */
export interface DestinationPolicy {
  allowLoopback: boolean;
}

/** Resolves every address of a name, as `dns.lookup` with `all: true` does (tests play a rebinding resolver). */
export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** Thrown, or handed to the connection, when a destination is refused. */
export class DestinationRefused extends Error {
  override readonly name = 'DestinationRefused';
}

/**
 * Cloud metadata services by name: they resolve only inside their cloud (to link-local
 * addresses, refused anyway), so a name check refuses them wherever the operator configures.
 * Sources: GCP (`metadata.google.internal`, `metadata.goog`), AWS (`instance-data`), Azure and
 * OpenStack use the link-local address only.
 */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

/** Global unicast IPv6 (RFC 4291 2000::/3): other IPv6 space, IPv4-compatible forms included, is never public. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** One reason for every refused host, whichever range or name refused it. */
const REFUSED_ADDRESS = 'the host is or resolves to a private, loopback, link-local or reserved address';

type AddressClass = 'public' | 'loopback' | 'refused';

/** One address (v4, v6, or IPv4-mapped v6, which counts as the IPv4 address it carries). */
function classify(address: string): AddressClass {
  if (!ipaddr.isValid(address)) return 'refused';
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range === 'loopback') return 'loopback';
  if (range !== 'unicast') return 'refused';
  if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) return 'refused';
  return 'public';
}

const allowed = (address: string, policy: DestinationPolicy): boolean => {
  const kind = classify(address);
  return kind === 'public' || (kind === 'loopback' && policy.allowLoopback);
};

/** A name as resolvers see it: lower case, without the root's trailing dot. */
const normalizedName = (name: string): string => name.toLowerCase().replace(/\.$/, '');

/**
 * A URL's host as a connection names it: an IP literal without brackets, or a normalized name.
 * The WHATWG parser has already turned decimal, octal and hex IPv4 spellings (`2130706433`,
 * `0x7f.1`, `0177.0.0.1`) into dotted quads.
 */
function hostOf(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') ? host.slice(1, -1) : normalizedName(host);
}

/** An IP literal as a URL or a connection spells one (ipaddr.js alone also reads shorthand forms as addresses). */
const isIpLiteral = (host: string): boolean => (host.includes(':') ? ipaddr.IPv6.isValid(host) : ipaddr.IPv4.isValidFourPartDecimal(host));

/** RFC 6761: `localhost` and its subdomains are loopback, whatever a resolver says. */
const isLocalhostName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

/**
 * What can be said of a host without resolving it: its refusal reason, 'loopback' for a
 * loopback literal or name the policy allows, 'literal' for a public IP, or 'name' for a name
 * whose addresses decide.
 */
function judgeHost(host: string, policy: DestinationPolicy): { refused: string } | 'loopback' | 'literal' | 'name' {
  if (isIpLiteral(host)) {
    const kind = classify(host);
    if (kind === 'public') return 'literal';
    if (kind === 'loopback' && policy.allowLoopback) return 'loopback';
    return { refused: REFUSED_ADDRESS };
  }
  if (METADATA_NAMES.has(host)) return { refused: REFUSED_ADDRESS };
  if (isLocalhostName(host)) return policy.allowLoopback ? 'loopback' : { refused: REFUSED_ADDRESS };
  return 'name';
}

/** The URL's scheme: https, or http to a loopback host where the policy allows loopback. */
function judgeScheme(url: URL, host: string, policy: DestinationPolicy): string | null {
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && policy.allowLoopback && judgeHost(host, policy) === 'loopback') return null;
  return policy.allowLoopback ? 'https is required (http only to a loopback host outside production)' : 'https is required';
}

/**
 * Why a URL may not be configured, or null. Checks the scheme and the host; a name is resolved
 * now, and every address it answers must be allowed. A name that does not resolve yet is
 * accepted: each delivery resolves it again and refuses what it answers then.
 */
export async function destinationRefusal(url: URL, policy: DestinationPolicy, resolve: Resolver = dnsLookup): Promise<string | null> {
  const host = hostOf(url);
  const scheme = judgeScheme(url, host, policy);
  if (scheme) return scheme;
  const judged = judgeHost(host, policy);
  if (typeof judged === 'object') return judged.refused;
  if (judged !== 'name') return null;
  const addresses = await new Promise<LookupAddress[]>((done) => resolve(host, { all: true }, (error, found) => done(error ? [] : found)));
  return addresses.every((entry) => allowed(entry.address, policy)) ? null : REFUSED_ADDRESS;
}

/**
 * The check of each delivery, before any connection: scheme and literal host. A name passes here
 * and is judged by `pinnedLookup` when the connection resolves it.
 */
export function requestRefused(url: URL, policy: DestinationPolicy): boolean {
  const host = hostOf(url);
  return judgeScheme(url, host, policy) !== null || typeof judgeHost(host, policy) === 'object';
}

/**
 * The `lookup` of a delivery's connection: resolves the name, refuses the connection when any
 * answer is not allowed, and hands the connection exactly the addresses it checked. The
 * connection therefore goes to a checked address, and a resolver that answers a public address
 * once and a private one later (DNS rebinding) cannot swap it between check and connect.
 */
export function pinnedLookup(policy: DestinationPolicy, resolve: Resolver = dnsLookup): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    const judged = judgeHost(normalizedName(hostname), policy);
    if (typeof judged === 'object') {
      callback(new DestinationRefused(judged.refused), []);
      return;
    }
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const first = addresses[0];
      if (!first || !addresses.every((entry) => allowed(entry.address, policy)))
        return callback(new DestinationRefused(REFUSED_ADDRESS), []);
      // `all` is what net asks for when it tries several addresses (autoSelectFamily).
      return options.all ? callback(null, addresses) : callback(null, first.address, first.family);
    });
  };
}
