import { createMember, createTenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { anyRequestId, useStack } from './support.js';

/** POST /email-validation (document 1, section B; design in docs/adr/0004). */
describe('POST /email-validation', () => {
  const s = useStack({ env: { EMAIL_VALIDATION_LIMIT_PER_HOUR: '1000' } });
  const validate = (publicKey: string, body: Record<string, unknown>) =>
    s.api('/email-validation', { headers: { resource: publicKey }, json: body });

  it('accepts a free email, refuses a member of this resource, and ignores other resources', async () => {
    const tenant = await createTenant(s.stack);
    const other = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    expect(await validate(tenant.publicKey, { email: 'free@example.test' })).toMatchObject({ status: 200, body: { result: true } });
    const taken = await validate(tenant.publicKey, { email: ` ${member.email.toUpperCase()} ` });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({ error: 'user_exists', error_description: expect.any(String), req_guid: anyRequestId });
    expect((await validate(other.publicKey, { email: member.email })).status).toBe(200);
  });

  it.each([{}, { email: 'nope' }, { email: ['a@b.test'] }])('%j → 409 invalid_email', async (body) => {
    const tenant = await createTenant(s.stack);
    expect((await validate(tenant.publicKey, body)).body['error']).toBe('invalid_email');
  });
});

describe('POST /email-validation per-address limit', () => {
  const s = useStack({ env: { EMAIL_VALIDATION_LIMIT_PER_HOUR: '2' } });

  it('answers 429 too_many_requests after the hourly limit', async () => {
    const tenant = await createTenant(s.stack);
    const statuses: number[] = [];
    for (let index = 0; index < 4; index++) {
      statuses.push(
        (await s.api('/email-validation', { headers: { resource: tenant.publicKey }, json: { email: `n${index}@example.test` } })).status,
      );
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
  });
});

describe('POST /email-validation parallel first requests from one address', () => {
  const s = useStack({ env: { EMAIL_VALIDATION_LIMIT_PER_HOUR: '20' } });

  it('answers no 5xx and lets exactly the limit through (issue 7; docs/adr/0081)', async () => {
    const tenant = await createTenant(s.stack);
    const validate = (index: number) =>
      s.api('/email-validation', { headers: { resource: tenant.publicKey }, json: { email: `p${index}@example.test` } });
    const burst = await Promise.all(Array.from({ length: 50 }, (_, index) => validate(index)));
    const statuses = burst.map((response) => response.status);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    expect(statuses.filter((status) => status === 200)).toHaveLength(20);
    const refused = burst.filter((response) => response.status === 429);
    expect(refused).toHaveLength(30);
    expect(refused[0]!.body).toEqual({ error: 'too_many_requests', error_description: expect.any(String), req_guid: anyRequestId });
    // The budget stays spent after the burst.
    expect((await validate(50)).status).toBe(429);
  });
});
