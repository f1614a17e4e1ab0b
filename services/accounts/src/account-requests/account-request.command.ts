import type { NewAccountRequest } from './account-request.repository.js';
import { fieldError } from '@masthead/core/errors';
import { isStorableText, unstorableText } from '@masthead/core/mongo';

/** Document 2, J: `number_of_websites` between 1 and 10, default 1. */
const WEBSITES = { min: 1, max: 10, fallback: 1 };
/** A practical address shape (one @, a dot in the domain, no spaces); the spec says "valid email". */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Longest text field accepted; the spec states none, this bounds stored rows. */
const MAX_TEXT = 255;

const REQUIRED_TEXT = ['first_name', 'last_name', 'company_name', 'job_title', 'plan'] as const;

type Fields = Omit<NewAccountRequest, 'resource_id' | 'remote_address'>;

/**
 * Validates the decoded body of POST /account-requests (document 2, J). Collects a message per
 * invalid field and throws them together (409 error_fields); the token key is validated only
 * when supplied.
 */
export function parseAccountRequest(body: Record<string, unknown>): Fields {
  const errors: Record<string, string> = {};
  const text = (name: string): string => {
    const value = body[name];
    if (typeof value !== 'string' || value.trim() === '') errors[name] = `${name} is required`;
    else if (value.length > MAX_TEXT) errors[name] = `${name} must be at most ${MAX_TEXT} characters`;
    else if (!isStorableText(value)) errors[name] = unstorableText(name);
    return typeof value === 'string' ? value.trim() : '';
  };
  const [firstName, lastName, companyName, jobTitle, plan] = REQUIRED_TEXT.map(text) as [string, string, string, string, string];

  const emailValue = body['email'];
  const email = typeof emailValue === 'string' ? emailValue.trim().toLowerCase() : '';
  if (!email) errors['email'] = 'email is required';
  else if (!EMAIL.test(email) || email.length > MAX_TEXT || !isStorableText(email)) errors['email'] = 'email must be a valid email address';

  const websitesValue = body['number_of_websites'] ?? WEBSITES.fallback;
  const websites =
    typeof websitesValue === 'number' || (typeof websitesValue === 'string' && websitesValue.trim() !== '') ? Number(websitesValue) : NaN;
  if (!Number.isFinite(websites) || websites < WEBSITES.min || websites > WEBSITES.max)
    errors['number_of_websites'] = `number_of_websites must be a number between ${WEBSITES.min} and ${WEBSITES.max}`;

  const tokenValue = body['cardprovider_token'];
  if (tokenValue !== undefined && tokenValue !== null && (typeof tokenValue !== 'string' || tokenValue.trim() === ''))
    errors['cardprovider_token'] = 'cardprovider_token must be a nonempty string';
  else if (typeof tokenValue === 'string' && !isStorableText(tokenValue))
    errors['cardprovider_token'] = unstorableText('cardprovider_token');

  // No format validation (document 2, J); a non-string is stored as its text.
  const phone = body['phone_number'] === undefined || body['phone_number'] === null ? null : String(body['phone_number']);
  if (phone !== null && !isStorableText(phone)) errors['phone_number'] = unstorableText('phone_number');

  if (Object.keys(errors).length > 0) throw fieldError(errors);
  return {
    first_name: firstName,
    last_name: lastName,
    company_name: companyName,
    job_title: jobTitle,
    email,
    plan,
    number_of_websites: Math.trunc(websites),
    phone_number: phone,
    // Optional, default false, no acceptance validation: only `true` counts.
    terms_and_conditions: body['terms_and_conditions'] === true,
    cardprovider_token: typeof tokenValue === 'string' ? tokenValue.trim() : null,
  };
}
