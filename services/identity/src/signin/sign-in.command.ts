import { invalidEmail, resourceNotExists } from '@masthead/core/errors';
import { MAX_PASSWORD_LENGTH } from '../passwords/password-policy.js';
import { passwordRequired, passwordTooLong } from '../passwords/password.errors.js';
import { invalidResponseType, redirectUriRequired } from './sign-in.errors.js';

export type ResponseType = 'token' | 'code' | 'code_and_token';

export interface SignInCommand {
  resourceId: number;
  email: string;
  /** Exactly as received: passwords are never trimmed. */
  password: string;
  responseType: ResponseType;
  redirectUri: string | null;
}

const RESPONSE_TYPES: readonly ResponseType[] = ['token', 'code', 'code_and_token'];
/** RFC 5321 caps a path at 256 octets, so an address longer than 254 cannot be delivered. */
const MAX_EMAIL_LENGTH = 254;
const EMAIL_PATTERN = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/u;
/**
 * Controls (C0 with NUL, DEL, C1), format characters (bidi overrides, zero-width spaces and
 * joiners), lone surrogates and U+FFFD (what a lone surrogate becomes on its way through
 * protobuf): no deliverable address needs one, mail systems mishandle them and they make an
 * address that reads as another one (issue 7, docs/adr/0082). White space, U+2028 and U+2029
 * included, is already outside EMAIL_PATTERN.
 */
const UNSAFE_IN_EMAIL = /[\p{Cc}\p{Cf}\p{Cs}\uFFFD]/u;

/**
 * Trimmed, lowercased email, or null when it is not a plausible address. The one email rule of
 * identity: every operation that takes an email answers its own invalid_email on null.
 */
export function normalizeEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  return email.length <= MAX_EMAIL_LENGTH && EMAIL_PATTERN.test(email) && !UNSAFE_IN_EMAIL.test(email) ? email : null;
}

/** `token`, `code` or `code_and_token`; empty means the operation's default. */
export function parseResponseType(raw: string, fallback: ResponseType): ResponseType {
  const responseType = (raw.trim() || fallback) as ResponseType;
  if (!RESPONSE_TYPES.includes(responseType)) {
    throw invalidResponseType();
  }
  return responseType;
}

/** Validates POST /authorization input in the spec's order; each failure is its 409 code. */
export function parseSignIn(input: {
  resourceId: number;
  email: string;
  password: string;
  responseType: string;
  redirectUri: string;
}): SignInCommand {
  const email = normalizeEmail(input.email);
  if (!email) throw invalidEmail();
  if (input.password.length === 0) throw passwordRequired();
  if (input.password.length > MAX_PASSWORD_LENGTH) throw passwordTooLong(MAX_PASSWORD_LENGTH);
  const responseType = parseResponseType(input.responseType, 'token');
  const redirectUri = input.redirectUri.trim() || null;
  if (responseType !== 'token' && input.resourceId === 0) {
    throw resourceNotExists();
  }
  if (responseType !== 'token' && !redirectUri) {
    throw redirectUriRequired();
  }
  return { resourceId: input.resourceId, email, password: input.password, responseType, redirectUri };
}

/**
 * A destination is accepted only on the resource's own host (or a subdomain of it), over HTTPS,
 * or HTTP on loopback for development. Anything else would let a crafted link send a code to a
 * third party.
 */
export function isAllowedRedirect(redirectUri: string, resourceHost: string | undefined): boolean {
  if (!resourceHost) return false;
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    return false;
  }
  const host =
    resourceHost
      .replace(/^https?:\/\//, '')
      .split('/')[0]
      ?.split(':')[0]
      ?.toLowerCase() ?? '';
  const loopback = url.hostname === '127.0.0.1' || url.hostname === 'localhost';
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && loopback);
  return secure && host !== '' && (url.hostname === host || url.hostname.endsWith(`.${host}`));
}
