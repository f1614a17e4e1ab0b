import type { ProviderSettings } from './provider-settings.js';

/** What a verified provider ID token says about its identity. */
export interface VerifiedIdentity {
  uid: string;
  email: string | null;
  emailVerified: boolean;
  /** The `exp` claim, Unix seconds, or null when absent. */
  expiresAt: number | null;
}

export type ProviderMail = 'password_reset' | 'email_sign_in';

/**
 * The provider as the idp operations use it. Every method throws a ServiceError: 409
 * `verify_failed` for a token that does not verify, 400 with a safe text in `error` for a
 * provider refusal or failure (never the provider's raw message or a secret).
 */
export interface IdentityProvider {
  /** Verifies a provider ID token issued for the settings' project (not a custom or session token). */
  verifyIdToken(settings: ProviderSettings, idToken: string): Promise<VerifiedIdentity>;
  /** Email and password sign-in at the provider; returns the identity's UID and an ID token. */
  signInWithPassword(settings: ProviderSettings, email: string, password: string): Promise<{ uid: string; idToken: string }>;
  /** A custom token for the identity, signed with the server credentials. */
  createCustomToken(settings: ProviderSettings, uid: string): Promise<string>;
  /** A fresh ID token for the identity (a custom token exchanged at the provider). */
  mintIdToken(settings: ProviderSettings, uid: string): Promise<string>;
  /** Revokes the identity's provider refresh tokens (its provider sessions). */
  revokeSessions(settings: ProviderSettings, uid: string): Promise<void>;
  /** Has the provider mail a link; an unknown email is not reported (no enumeration). */
  sendMail(settings: ProviderSettings, kind: ProviderMail, email: string, continueUrl: string | null): Promise<void>;
}
