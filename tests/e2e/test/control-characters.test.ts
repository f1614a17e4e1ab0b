import { createTenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { signedIn } from './profile-support.js';
import { anyRequestId, useStack } from './support.js';

/** Addresses that look like one address and are another, or that mail systems mishandle. */
const UNSAFE_EMAILS = [
  ['NUL', 'ada\u0000@example.test'],
  ['a C0 control', 'ada\u0007@example.test'],
  ['DEL', 'ada\u007f@example.test'],
  ['a C1 control', 'ada\u0085@example.test'],
  ['a right-to-left override', 'ada\u202e@example.test'],
  ['a zero-width space', 'ada\u200b@example.test'],
  ['a line separator', 'ada@exa\u2028mple.test'],
  // Reaches identity as U+FFFD (protobuf strings are UTF-8), which no real address holds either.
  ['a lone surrogate', 'ada\ud800@example.test'],
  ['a replacement character', 'ada\ufffd@example.test'],
] as const;

/** Characters a one-line name cannot hold: they break lines or reorder its display. */
const UNSAFE_NAMES = [
  ['NUL', 'Ada\u0000'],
  ['a C1 control', 'Ada\u009b'],
  ['a line separator', 'Ada\u2028Lovelace'],
  ['a paragraph separator', 'Ada\u2029Lovelace'],
  ['a right-to-left override', '\u202eecalevoL'],
  ['a left-to-right isolate', 'Ada \u2066x\u2069'],
] as const;

const invalidEmail = { error: 'invalid_email', error_description: expect.any(String), req_guid: anyRequestId };

/** Control and format characters in emails and names (issue 7, item 6; docs/adr/0082). */
describe('control characters in emails and names', () => {
  const s = useStack({ env: { REGISTRATION_LIMIT_PER_HOUR: '1000', EMAIL_VALIDATION_LIMIT_PER_HOUR: '1000' } });
  const password = 'correct horse battery staple';

  it.each(UNSAFE_EMAILS)('refuses an email with %s at registration, validation and sign-in (409 invalid_email)', async (_label, email) => {
    const tenant = await createTenant(s.stack);
    const headers = { resource: tenant.publicKey };
    const registration = await s.api('/registration', { headers, json: { email, password } });
    expect({ status: registration.status, body: registration.body }).toEqual({ status: 409, body: invalidEmail });
    const validation = await s.api('/email-validation', { headers, json: { email } });
    expect({ status: validation.status, body: validation.body }).toEqual({ status: 409, body: invalidEmail });
    const signIn = await s.api('/authorization', { headers, json: { email, password } });
    expect({ status: signIn.status, body: signIn.body }).toEqual({ status: 409, body: invalidEmail });
    // Nothing stored, so no confirmation mail goes to the address. The stored addresses are read
    // back rather than queried with the address: PostgreSQL's jsonb (under the embedded FerretDB)
    // refuses U+0000 in a query (ADR 0090).
    const stored = await s
      .db('identity')
      .collection('users')
      .find({}, { projection: { email: 1 } })
      .toArray();
    expect(stored.map((user) => user['email'])).not.toContain(email.toLowerCase());
  });

  it.each(UNSAFE_NAMES)('refuses a name with %s at registration and in PUT /user (409 error_fields)', async (_label, name) => {
    const tenant = await createTenant(s.stack);
    const email = `names-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
    const registration = await s.api('/registration', {
      headers: { resource: tenant.publicKey },
      json: { email, password, last_name: name },
    });
    expect({ status: registration.status, body: registration.body }).toEqual({
      status: 409,
      body: { error: true, error_fields: { last_name: 'must not contain control characters' }, req_guid: anyRequestId },
    });

    const { headers } = await signedIn(s, tenant);
    const update = await s.api('/user', { method: 'PUT', headers, json: { first_name: name } });
    expect({ status: update.status, body: update.body }).toEqual({
      status: 409,
      body: { error: true, error_fields: { first_name: 'must not contain control characters' }, req_guid: anyRequestId },
    });
  });

  it('keeps the joiners and direction marks that real names are spelled with', async () => {
    const tenant = await createTenant(s.stack);
    // ZWNJ spells Persian words; an RLM marks direction without reordering what follows.
    const names = { first_name: 'می\u200cخواهم', last_name: 'Lovelace\u200f' };
    const email = `joiners-${Date.now()}@example.test`;
    const registration = await s.api('/registration', { headers: { resource: tenant.publicKey }, json: { email, password, ...names } });
    expect(registration.status).toBe(201);
    expect(registration.body).toMatchObject(names);
  });
});
