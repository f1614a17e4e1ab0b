/**
 * The deployment's default configuration: the last layer of a resource's inherited settings
 * (resource → partner → these; document 2 K, docs/adr/0170). Each value is what the services
 * already assume when a resource leaves the key unset, so the embedded settings read states the
 * behaviour a publisher gets rather than a guess.
 */
export const DEFAULT_SETTINGS: Readonly<Record<string, unknown>> = Object.freeze({
  /** No membership is attached at sign-in unless a resource names one (identity's attacher). */
  default_subscription_id: null,
  default_guest_subscription_id: null,
  /** Off: a member may hold several memberships (catalog, community). */
  single_subscription: false,
  /** New memberships do not renew unless the publisher says so. */
  default_autorenewal_subscription: false,
  default_autorenewal_teams_subscription: false,
  /** A downgrade applies at once unless the publisher delays it. */
  delay_downgrade: false,
  /** The card provider (document 1 D: the fallback of `default_paysystem`). */
  default_paysystem: 'cardprovider',
  /** Live unless set (document 1, Resource configuration: "default true when unset"). */
  payments_in_live_mode: true,
  /** The external identity provider and its document store are off unless enabled. */
  idp_auth: false,
  idp_docstore: false,
  logo: null,
});

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Resource over partner over default, key by key (a key set to null in a nearer layer stays
 * null: an explicit "none" wins over an inherited value).
 */
export function inheritSettings(resource: unknown, partner: unknown): Record<string, unknown> {
  return { ...DEFAULT_SETTINGS, ...(isPlainObject(partner) ? partner : {}), ...(isPlainObject(resource) ? resource : {}) };
}
