import { randomBytes } from 'node:crypto';
import { expect, inject } from 'vitest';
import { anyRequestId } from './support.js';

/**
 * The run's Firebase Auth emulator (tests/stack global setup), driven through its REST API the
 * way a publisher's web app and the provider console would.
 */
export function idpEmulator() {
  const host = inject('idpEmulatorHost');
  const projectId = inject('idpProjectId');
  if (!host) throw new Error('The Firebase Auth emulator did not start; see firebase-auth.log in the run folder');
  // The emulator accepts any API key; a real one is public too (it ships in the web config).
  const apiKey = 'test-web-api-key';
  const rest = async (method: string, body: Record<string, unknown>, admin = false) => {
    const path = admin ? `v1/projects/${projectId}/${method}` : `v1/${method}?key=${apiKey}`;
    const response = await fetch(`http://${host}/identitytoolkit.googleapis.com/${path}`, {
      method: 'POST',
      // `Bearer owner` is the emulator's administrator credential.
      headers: { 'content-type': 'application/json', ...(admin ? { authorization: 'Bearer owner' } : {}) },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`emulator ${method}: ${JSON.stringify(answer)}`);
    return answer;
  };
  const verifyEmail = async (uid: string) => {
    await rest('accounts:update', { localId: uid, emailVerified: true }, true);
  };
  const signIn = async (email: string, password: string) => {
    const answer = await rest('accounts:signInWithPassword', { email, password, returnSecureToken: true });
    return answer['idToken'] as string;
  };

  return {
    projectId,
    /** A resource's settings with the provider enabled (ADR 0050). */
    settings: () => ({
      idp_auth: true,
      idp_web_app_config: { apiKey, authDomain: `${projectId}.firebaseapp.com`, projectId },
    }),
    signIn,
    verifyEmail,
    /** A new provider identity; `verified` has the provider vouch for its email. */
    async createUser(options: { email?: string; verified?: boolean } = {}) {
      const email = options.email ?? `idp-${randomBytes(5).toString('hex')}@example.test`;
      const password = `Pw-${randomBytes(6).toString('hex')}`;
      const created = await rest('accounts:signUp', { email, password, returnSecureToken: true });
      const uid = created['localId'] as string;
      if (options.verified) await verifyEmail(uid);
      return { uid, email, password, idToken: options.verified ? await signIn(email, password) : (created['idToken'] as string) };
    },
    /** A custom token exchanged at the provider, as a client SDK does. */
    async exchangeCustomToken(token: string) {
      const answer = await rest('accounts:signInWithCustomToken', { token, returnSecureToken: true });
      return answer['idToken'] as string;
    },
  };
}

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An unsigned emulator-style ID token with the given claims (the emulator accepts `alg: none`). */
export function unsignedToken(projectId: string, claims: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  const payload = {
    iss: `https://securetoken.google.com/${projectId}`,
    aud: projectId,
    auth_time: now,
    iat: now,
    exp: now + 3600,
    ...claims,
  };
  return `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(payload)}.`;
}

/** The spec's error envelope with a code (document 1, Errors). */
export const errorBody = (code: string) => ({ error: code, error_description: expect.any(String), req_guid: anyRequestId });

/** The envelope of an error whose `error` is a dynamic text (section A's 400s). */
export const dynamicErrorBody = (text: string) => ({ error: text, error_description: text, req_guid: anyRequestId });
