import { seal, type KeyRing } from '@masthead/core/secrets';
import { TtlCache } from '@masthead/core/cache';
import { integrationsKeyRingMissing } from '../support/secrets.errors.js';
import { invalidCaptchaKey } from './captcha.errors.js';
import type { CaptchaChanges, CaptchaRepository } from './captcha.repository.js';
import type { CaptchaRecord } from './captcha.schema.js';

/** The global record: the deployment's own keys, every resource's fallback. */
export const GLOBAL_CAPTCHA = 0;

/** Keys as challenge services issue them: printable, no spaces. */
const CAPTCHA_KEY = /^[\x21-\x7e]{1,256}$/;

/** Binds a sealed secret to its record, so that it cannot be copied onto another one. */
export const captchaSecretAad = (resourceId: number): string => `captcha:${resourceId}`;

export interface PublicCaptchaSettings {
  active: boolean;
  publicKey: string | null;
}

export interface SetCaptchaCommand {
  resourceId: number;
  active?: boolean;
  /** '' clears it. */
  publicKey?: string;
  /** '' clears it. */
  secretKey?: string;
}

interface Deps {
  captcha: CaptchaRepository;
  /** Null when no ring is configured (production without INTEGRATIONS_SECRETS_KEYS). */
  ring: KeyRing | null;
  cacheTtlMs: number;
}

/** Captcha settings (see CONTEXT.md). */
export class CaptchaService {
  private readonly cache: TtlCache<number, CaptchaRecord | null>;

  constructor(private readonly deps: Deps) {
    this.cache = new TtlCache(deps.cacheTtlMs);
  }

  /** What GET /integrations/resource/captcha-settings shows; never the secret. */
  async publicSettings(resourceId: number): Promise<PublicCaptchaSettings> {
    const [own, global] = await Promise.all([this.record(resourceId), this.record(GLOBAL_CAPTCHA)]);
    return { active: own?.active === true, publicKey: own?.public_key ?? global?.public_key ?? null };
  }

  async set(command: SetCaptchaCommand): Promise<CaptchaRecord> {
    const changes: CaptchaChanges = {};
    if (command.active !== undefined) changes.active = command.active;
    if (command.publicKey !== undefined) changes.public_key = this.key('public_key', command.publicKey);
    if (command.secretKey !== undefined) {
      const secret = this.key('secret_key', command.secretKey);
      if (secret !== null && !this.deps.ring) throw integrationsKeyRingMissing();
      changes.secret_key = secret === null ? null : seal(this.deps.ring!, secret, captchaSecretAad(command.resourceId));
      changes.secret_key_last4 = secret === null ? '' : secret.slice(-4);
    }
    const saved = await this.deps.captcha.save(command.resourceId, changes);
    this.cache.delete(command.resourceId);
    return saved;
  }

  summary(resourceId: number): Promise<CaptchaRecord | null> {
    return this.deps.captcha.find(resourceId);
  }

  private record(resourceId: number): Promise<CaptchaRecord | null> {
    return this.cache.getOrLoad(resourceId, () => this.deps.captcha.find(resourceId));
  }

  private key(field: 'public_key' | 'secret_key', value: string): string | null {
    const key = value.trim();
    if (key === '') return null;
    if (!CAPTCHA_KEY.test(key)) throw invalidCaptchaKey(field);
    return key;
  }
}
