import type { ClientOf } from '@masthead/core/clients';
import { TtlCache } from '@masthead/core/cache';

/** Keys an embed has no use for (see CONTEXT.md). */
const INTERNAL_KEYS = new Set([
  'device_limit',
  'device_limit_action',
  'compromised_session_action',
  'auto_attach_customer_to_resource',
  'use_group_users_country',
  'currencies',
]);
/** Whatever is named like a credential never leaves, even if an operator put it in settings. */
const SECRET_LIKE = /(secret|password|private_key|token|api_key)/i;

const isInternal = (key: string): boolean => INTERNAL_KEYS.has(key) || SECRET_LIKE.test(key);

export interface EmbeddedSettings {
  settings: Record<string, unknown>;
  logo: string | null;
}

interface Deps {
  accounts: Pick<ClientOf<'accounts'>, 'getEffectiveSettings'>;
  cacheTtlMs: number;
}

/** The settings an embedded integration reads (see CONTEXT.md). */
export class EmbeddedSettingsService {
  private readonly cache: TtlCache<number, EmbeddedSettings>;

  constructor(private readonly deps: Deps) {
    this.cache = new TtlCache(deps.cacheTtlMs);
  }

  /** 404 resource_not_exists (from accounts) when the resource is unknown. */
  get(resourceId: number): Promise<EmbeddedSettings> {
    return this.cache.getOrLoad(resourceId, async () => {
      const { settings = {} } = await this.deps.accounts.getEffectiveSettings({ id: resourceId }, { idempotent: true });
      const visible = Object.fromEntries(Object.entries(settings).filter(([key]) => key !== 'logo' && !isInternal(key)));
      const logo = settings['logo'];
      return { settings: visible, logo: typeof logo === 'string' && logo.trim() !== '' ? logo.trim() : null };
    });
  }

  /** Drops the cached copy (a `resource_updated` announcement). */
  forget(resourceId: number): void {
    this.cache.delete(resourceId);
  }
}
