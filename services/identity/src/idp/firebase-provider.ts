import { isServiceError } from '@masthead/core/errors';
import type { Logger } from '@masthead/core/logging';
import { getAuth } from 'firebase-admin/auth';
import type { FirebaseApps } from './firebase-apps.js';
import type { IdentityProvider, ProviderMail, VerifiedIdentity } from './identity-provider.js';
import { PROVIDER_FAILED, providerRefusal, tokenRejected } from './provider-errors.js';
import type { ProviderSettings } from './provider-settings.js';
import { providerFailure } from './idp.errors.js';

export interface FirebaseOptions {
  apps: FirebaseApps;
  /** Deadline of one REST call. */
  timeoutMs: number;
  logger: Logger;
}

const MAIL_REQUEST_TYPES: Record<ProviderMail, string> = { password_reset: 'PASSWORD_RESET', email_sign_in: 'EMAIL_SIGNIN' };

/** Firebase Authentication: firebase-admin for tokens, the provider's REST API for sign-in and mail. */
export class FirebaseProvider implements IdentityProvider {
  private readonly restBase: string;

  constructor(private readonly options: FirebaseOptions) {
    const emulatorHost = options.apps.emulatorHost;
    this.restBase = emulatorHost ? `http://${emulatorHost}/identitytoolkit.googleapis.com/v1` : 'https://identitytoolkit.googleapis.com/v1';
  }

  async verifyIdToken(settings: ProviderSettings, idToken: string): Promise<VerifiedIdentity> {
    try {
      const claims = await getAuth(this.app(settings)).verifyIdToken(idToken);
      return {
        uid: claims.uid,
        email: typeof claims.email === 'string' ? claims.email : null,
        emailVerified: claims.email_verified === true,
        expiresAt: typeof claims.exp === 'number' ? claims.exp : null,
      };
    } catch (error) {
      throw tokenRejected(error);
    }
  }

  async signInWithPassword(settings: ProviderSettings, email: string, password: string): Promise<{ uid: string; idToken: string }> {
    const answer = await this.rest(settings, 'accounts:signInWithPassword', { email, password, returnSecureToken: true });
    return { uid: String(answer['localId'] ?? ''), idToken: String(answer['idToken'] ?? '') };
  }

  async createCustomToken(settings: ProviderSettings, uid: string): Promise<string> {
    try {
      return await getAuth(this.app(settings)).createCustomToken(uid);
    } catch (error) {
      throw this.failure('createCustomToken', error);
    }
  }

  async mintIdToken(settings: ProviderSettings, uid: string): Promise<string> {
    const token = await this.createCustomToken(settings, uid);
    const answer = await this.rest(settings, 'accounts:signInWithCustomToken', { token, returnSecureToken: true });
    return String(answer['idToken'] ?? '');
  }

  async revokeSessions(settings: ProviderSettings, uid: string): Promise<void> {
    try {
      await getAuth(this.app(settings)).revokeRefreshTokens(uid);
    } catch (error) {
      throw this.failure('revokeRefreshTokens', error);
    }
  }

  async sendMail(settings: ProviderSettings, kind: ProviderMail, email: string, continueUrl: string | null): Promise<void> {
    const body: Record<string, unknown> = { requestType: MAIL_REQUEST_TYPES[kind], email };
    if (continueUrl) body['continueUrl'] = continueUrl;
    try {
      await this.rest(settings, 'accounts:sendOobCode', body);
    } catch (error) {
      // An unknown email is answered like a known one: the caller learns nothing about accounts.
      if (isServiceError(error) && error.code === providerRefusal('EMAIL_NOT_FOUND').code && kind === 'password_reset') return;
      throw error;
    }
  }

  private app(settings: ProviderSettings) {
    return this.options.apps.app(settings.projectId);
  }

  /** A POST to the provider's REST API with the resource's public API key. */
  private async rest(settings: ProviderSettings, method: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    let response: Response;
    try {
      response = await fetch(`${this.restBase}/${method}?key=${encodeURIComponent(settings.apiKey)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      throw this.failure(method, error);
    }
    const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.ok) return answer;
    const error = answer['error'] as { message?: unknown } | undefined;
    throw providerRefusal(typeof error?.message === 'string' ? error.message : '');
  }

  /** Logs what failed (the error's code, never a token or credential) and answers a safe 400. */
  private failure(operation: string, error: unknown) {
    const code = (error as { code?: unknown })?.code ?? (error as { name?: unknown })?.name;
    this.options.logger.warn({ operation, code }, 'identity provider call failed');
    return providerFailure(PROVIDER_FAILED);
  }
}
