import { randomBytes } from 'node:crypto';
import { createClients } from '@masthead/core/clients';
import {
  createTenant,
  startFakeAudience,
  startFakeCrm,
  startFakeListmgr,
  type FakeAudience,
  type FakeCrm,
  type FakeListmgr,
  type Tenant,
} from '@masthead/testkit';
import { afterAll, beforeAll, expect } from 'vitest';
import { useStack, type StackHandle } from './support.js';

/**
 * The email-list and CRM providers' local fakes (tests/stack fake-providers, docs/adr/0165) for
 * one test file, with a stack whose integrations service talks to them; operator clients of
 * integrations (what `masthead-admin` does) and members signed in with a role.
 */
export interface ProviderHarness {
  s: StackHandle;
  audience: FakeAudience;
  crm: FakeCrm;
  listmgr: FakeListmgr;
  operator(): ReturnType<typeof operatorClients>;
}

/** Deadline of one provider call in these stacks: short, so that a missed one costs little. */
export const PROVIDER_TIMEOUT_MS = 2000;

const operatorClients = (s: StackHandle) =>
  createClients(['providerConfig', 'crm', 'listmgr'], { integrations: s.stack.env['INTEGRATIONS_ADDR']! }, { defaultDeadlineMs: 10_000 });

export function useProviders(): ProviderHarness {
  const env: Record<string, string> = { PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS) };
  const harness = {} as ProviderHarness;
  let clients: ReturnType<typeof operatorClients> | undefined;
  beforeAll(async () => {
    [harness.audience, harness.crm, harness.listmgr] = await Promise.all([startFakeAudience(), startFakeCrm(), startFakeListmgr()]);
    env['AUDIENCE_API_BASE'] = harness.audience.url;
    env['CRM_API_BASE'] = harness.crm.url;
    env['LISTMGR_API_BASE'] = harness.listmgr.url;
  });
  afterAll(async () => {
    clients?.close();
    await Promise.all([harness.audience?.stop(), harness.crm?.stop(), harness.listmgr?.stop()]);
  });
  harness.s = useStack({ env });
  harness.operator = () => (clients ??= operatorClients(harness.s));
  return harness;
}

export interface SignedIn {
  id: number;
  email: string;
  headers: Record<string, string>;
}

/** A member of `tenant` with `role` (user, admin, partner, root) and names, signed in there. */
export async function signIn(
  s: StackHandle,
  tenant: Tenant,
  role = 'user',
  names: { firstName?: string; lastName?: string } = {},
): Promise<SignedIn> {
  const email = `member-${randomBytes(5).toString('hex')}@example.test`;
  const password = `Pw-${randomBytes(8).toString('hex')}`;
  const user = await s.stack.operator.identity.upsertMember({ resourceId: tenant.resourceId, email, password, role, ...names });
  const response = await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: { email, password } });
  expect(response.status, response.text).toBe(200);
  return { id: user.id, email, headers: { resource: tenant.publicKey, token: response.body['token'] as string } };
}

/** A user's global role set where identity keeps it (no operator call sets `admin` globally). */
export const setGlobalRole = (s: StackHandle, userId: number, role: string) =>
  s
    .db('identity')
    .collection('users')
    .updateOne({ _id: userId as never }, { $set: { role } });

/** A random provider key as the audience provider issues them (`…-us1`). */
export const audienceKey = () => `${randomBytes(16).toString('hex')}-us1`;
/** A random API token as the crm provider issues them. */
export const crmKey = () => randomBytes(36).toString('hex');

/** A new resource; its ID and key. */
export const newTenant = (s: StackHandle) => createTenant(s.stack);

/** The whole error envelope of a documented error. */
export const envelope = (error: string, description = expect.any(String)) => ({
  error,
  error_description: description,
  req_guid: expect.stringMatching(/^[0-9a-f-]{36}$/),
});
