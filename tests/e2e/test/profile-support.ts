import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { expect } from 'vitest';
import { blankUserProjection, type StackHandle } from './support.js';

/** Helpers of the profile tests (profile*.test.ts). */

export function signIn(s: StackHandle, tenant: Tenant, email: string, password: string) {
  return s.api('/authorization', { headers: { resource: tenant.publicKey }, json: { email, password } });
}

/** A new member of the tenant's resource (a new resource by default), signed in, with its member headers. */
export async function signedIn(s: StackHandle, existing?: Tenant) {
  const tenant = existing ?? (await createTenant(s.stack));
  const member = await createMember(s.stack, tenant);
  const response = await signIn(s, tenant, member.email, member.password);
  expect(response.status).toBe(200);
  return { tenant, member, headers: { resource: tenant.publicKey, token: response.body['token'] as string } };
}

/** The whole user projection of a fresh member with a resource (ADR 0007), with the fields a test set. */
export function memberProjection(member: { id: number; email: string }, fields: Record<string, unknown>): Record<string, unknown> {
  return blankUserProjection(member.id, member.email, { extra: {}, ...fields });
}
