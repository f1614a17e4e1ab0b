import { randomBytes } from 'node:crypto';
import type { Stack } from './stack.js';

export interface TenantOptions {
  settings?: Record<string, unknown>;
  host?: string;
  allowedOrigins?: string[];
}

export interface Tenant {
  resourceId: number;
  publicKey: string;
  partnerId: number;
}

/**
 * A resource of its own for one test (isolation by tenant, never by truncating collections),
 * created through the operator APIs as an operator would.
 */
export async function createTenant(stack: Stack, options: TenantOptions = {}): Promise<Tenant> {
  const suffix = randomBytes(4).toString('hex');
  const partner = await stack.operator.accounts.createPartner({ title: `Partner ${suffix}` });
  const resource = await stack.operator.accounts.upsertResource({
    publicKey: `res-${suffix}`,
    title: `Resource ${suffix}`,
    host: options.host ?? `${suffix}.example.test`,
    partnerId: partner.id,
    settings: options.settings ?? {},
    allowedOrigins: options.allowedOrigins ?? [],
  });
  return { resourceId: resource.id, publicKey: resource.publicKey, partnerId: partner.id };
}

export interface MemberOptions {
  email?: string;
  password?: string;
  role?: string;
}

/** A member of the tenant's resource, created through the identity operator API. */
export async function createMember(stack: Stack, tenant: Tenant, options: MemberOptions = {}) {
  const email = options.email ?? `member-${randomBytes(4).toString('hex')}@example.test`;
  const password = options.password ?? `Pw-${randomBytes(8).toString('hex')}`;
  const user = await stack.operator.identity.upsertMember({ resourceId: tenant.resourceId, email, password, role: options.role ?? 'user' });
  return { id: user.id, email, password };
}
