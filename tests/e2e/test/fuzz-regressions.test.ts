import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { anyRequestId, useStack } from './support.js';

/**
 * Requests the fuzzer (fuzz.test.ts) found breaking the contract, shrunk by fast-check and kept
 * here once their cause was fixed.
 */
describe('fuzz regressions', () => {
  const s = useStack();
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await createTenant(s.stack);
  });

  it('answers a page beyond int32 with the field error, not a 500 (GET /languages?page=9999999999)', async () => {
    for (const headers of [{ resource: '' }, { resource: tenant.publicKey }]) {
      const response = await s.api('/languages?page=9999999999', { headers });
      expect(response.status).toBe(409);
      expect(response.body).toEqual({ error: true, error_fields: { page: 'page must be at most 2147483647' }, req_guid: anyRequestId });
    }
    // The largest page the contracts carry is still a page (an empty one).
    const last = await s.api('/languages?page=2147483647', { headers: { resource: tenant.publicKey } });
    expect(last.status).toBe(200);
    expect(last.body['items']).toEqual([]);
  });

  it('answers a code with a NUL character as an unknown code, not a 500 (GET /recipient/sponsored-subscriptions/slots/a%00b)', async () => {
    const member = await createMember(s.stack, tenant);
    const signIn = await s.api('/authorization', {
      headers: { resource: tenant.publicKey },
      json: { email: member.email, password: member.password },
    });
    const headers = { resource: tenant.publicKey, token: signIn.body['token'] as string };
    const response = await s.api('/recipient/sponsored-subscriptions/slots/a%00b', { headers });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'sponsor_slot_not_found', error_description: 'Slot not found', req_guid: anyRequestId });
  });

  it('answers a store transaction ID with a NUL character as not found, not a 500 (GET /integrations/external/transaction?external_source_id=%00)', async () => {
    const { key } = await s.stack.operator.serviceAccounts.createServiceAccount({
      resourceId: tenant.resourceId,
      title: 'Fuzz regression',
      fullAccess: true,
      grants: [],
    });
    const response = await s.api('/integrations/external/transaction?external_source_id=%00', {
      headers: { resource: tenant.publicKey, 'service-api-key': key },
    });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'get_transaction_error', error_description: 'Transaction not found', req_guid: anyRequestId });
  });

  it('answers headers over 16 KiB with 431 in the envelope, not a bare status line', async () => {
    const response = await s.api('/plans', { headers: { resource: tenant.publicKey, 'x-custom': 'h'.repeat(20_000) } });
    expect(response.status).toBe(431);
    expect(response.body).toEqual({
      error: 'headers_too_large',
      error_description: 'The request headers are too large',
      req_guid: anyRequestId,
    });
  });
});
