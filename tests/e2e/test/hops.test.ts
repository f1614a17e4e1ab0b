import { createMember, createTenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { collectEvents, eventWhere, grpcCallCounter, useStack } from './support.js';

/** Counts the gateway's outgoing gRPC calls (DESIGN.md "Hot paths"). */
const { calls, counter } = grpcCallCounter();

describe('blocking gRPC calls per request, after warm-up', () => {
  const s = useStack({ gatewayInterceptors: [counter] });

  /**
   * A new tenant whose creation the gateway has heard of: its `resource_updated` (sent through the
   * outbox, later under load) would otherwise drop the cached resource after the warm-up.
   */
  const settledTenant = async () => {
    const events = collectEvents(s.nats, 'resource_updated');
    await s.nats.flush(); // the subscription is on the server before the event can be
    const tenant = await createTenant(s.stack);
    await eventWhere(events, 'public_key', tenant.publicKey);
    return tenant;
  };

  /** The calls of one request after a warm-up that fills the resource cache. */
  const count = async (request: () => Promise<unknown>) => {
    await request(); // warm-up
    calls.length = 0;
    await request();
    return [...calls];
  };

  it('a guest read makes one call', async () => {
    const tenant = await settledTenant();
    const made = await count(() => s.api('/plans', { headers: { resource: tenant.publicKey }, query: 'page=1' }));
    expect(made).toEqual(['/masthead.catalog.v1.PlansService/ListPlans']);
  });

  it('a member read makes two', async () => {
    const tenant = await settledTenant();
    const member = await createMember(s.stack, tenant);
    const token = (
      await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: { email: member.email, password: member.password } })
    ).body['token'] as string;
    const made = await count(() => s.api('/user', { headers: { resource: tenant.publicKey, token } }));
    expect(made).toEqual(['/masthead.identity.v1.IdentityService/Authenticate', '/masthead.identity.v1.IdentityService/GetProfile']);
  });

  it('a member read that catalog gathers from other services makes two too', async () => {
    const tenant = await settledTenant();
    const member = await createMember(s.stack, tenant);
    const token = (
      await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: { email: member.email, password: member.password } })
    ).body['token'] as string;
    const made = await count(() => s.api('/user/resources/subscriptions', { headers: { resource: tenant.publicKey, token } }));
    expect(made).toEqual([
      '/masthead.identity.v1.IdentityService/Authenticate',
      '/masthead.catalog.v1.MemberViewsService/ListResourceMemberships',
    ]);
  });

  it('a service-account read makes one (usage is reported apart, in batches)', async () => {
    const tenant = await settledTenant();
    const { key } = await s.stack.operator.serviceAccounts.createServiceAccount({
      resourceId: tenant.resourceId,
      title: 'Hops',
      fullAccess: true,
      grants: [],
    });
    const made = await count(() =>
      s.api('/integrations/external/subscription', {
        headers: { resource: tenant.publicKey, 'service-api-key': key },
        query: 'external_source_id=none',
      }),
    );
    expect(made.filter((path) => !path.endsWith('/RecordServiceAccountUsage'))).toEqual([
      '/masthead.catalog.v1.PricingsService/FindPricingByExternalSource',
    ]);
  });
});
