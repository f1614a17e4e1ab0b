import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { expect } from 'vitest';
import type { StackHandle } from './support.js';

/**
 * A member of a resource (a fresh one unless given), signed in there through POST
 * /authorization, with the headers of its member context.
 */
export async function signedInMember(s: StackHandle, tenant?: Tenant) {
  const resource = tenant ?? (await createTenant(s.stack));
  const member = await createMember(s.stack, resource);
  const response = await s.api('/authorization', {
    headers: { resource: resource.publicKey },
    json: { email: member.email, password: member.password },
  });
  expect(response.status).toBe(200);
  return { tenant: resource, member, headers: { resource: resource.publicKey, token: response.body['token'] as string } };
}
