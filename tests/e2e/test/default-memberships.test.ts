import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { catalogKit } from './catalog-support.js';
import { useStack } from './support.js';

/**
 * The default membership of a member joining a resource (docs/adr/0015):
 * `default_subscription_id`, `default_guest_subscription_id` and `single_subscription`.
 */
describe('default membership on joining a resource', () => {
  const s = useStack({ env: { REGISTRATION_LIMIT_PER_HOUR: '1000' } });
  const password = 'correct horse battery staple';
  const catalog = catalogKit(s);

  /** A resource with a free plan of two pricings, configured with `settings`. */
  async function resourceWithDefaults(settings: (pricings: { member: number; guest: number }) => Record<string, unknown>) {
    const tenant = await createTenant(s.stack);
    const plan = await catalog.plan(tenant, 'free', { title: 'Free' });
    const pricing = (title: string) => catalog.pricing(plan.id, title, { price: 0 });
    const pricings = { member: (await pricing('Member default')).id, guest: (await pricing('Guest default')).id };
    await configure(tenant, settings(pricings));
    return { tenant, pricings };
  }

  const configure = (tenant: Tenant, settings: Record<string, unknown>) =>
    s.stack.operator.accounts.upsertResource({
      publicKey: tenant.publicKey,
      title: 'With defaults',
      host: 'example.test',
      partnerId: tenant.partnerId,
      settings,
      allowedOrigins: [],
    });

  /** A member of another resource who joins `tenant` by signing in there: a guest of it. */
  async function guestJoins(tenant: Tenant) {
    const member = await createMember(s.stack, await createTenant(s.stack));
    const response = await s.api('/authorization', {
      headers: { resource: tenant.publicKey },
      json: { email: member.email, password: member.password },
    });
    expect(response.status).toBe(200);
    return { member, body: response.body };
  }

  const pricingIdsOf = (body: Record<string, unknown>) => (body['subscriptions'] as Array<{ id: number }>).map((item) => item.id);

  it('gives a guest joining by sign-in the guest default, and a registering member the member default', async () => {
    const { tenant, pricings } = await resourceWithDefaults(({ member, guest }) => ({
      default_subscription_id: member,
      default_guest_subscription_id: guest,
    }));

    const guest = await guestJoins(tenant);
    expect(pricingIdsOf(guest.body)).toEqual([pricings.guest]);

    const registered = await s.api('/registration', {
      headers: { resource: tenant.publicKey },
      json: { email: `registers-${tenant.resourceId}@example.test`, password },
    });
    expect(registered.status).toBe(201);
    expect(pricingIdsOf(registered.body)).toEqual([pricings.member]);
  });

  it('gives a guest the member default when no guest default is set, and accepts IDs written as strings', async () => {
    const { tenant, pricings } = await resourceWithDefaults(({ member }) => ({ default_subscription_id: String(member) }));
    expect(pricingIdsOf((await guestJoins(tenant)).body)).toEqual([pricings.member]);
  });

  it('ignores a default that is not a positive integer, or names no active pricing of the resource', async () => {
    for (const value of [-1, 1.5, 'abc', true, { id: 1 }, 999_999]) {
      const { tenant } = await resourceWithDefaults(() => ({ default_subscription_id: value, default_guest_subscription_id: value }));
      const guest = await guestJoins(tenant);
      expect(guest.body['subscriptions']).toEqual([]);
    }
  });

  it.each([
    { setting: true, expected: 'the grant only' },
    { setting: 'yes', expected: 'the grant and the default' },
  ])('with single_subscription $setting a member already holding a membership there gets $expected', async ({ setting }) => {
    const { tenant, pricings } = await resourceWithDefaults(({ guest }) => ({
      default_guest_subscription_id: guest,
      single_subscription: setting,
    }));
    const member = await createMember(s.stack, await createTenant(s.stack));
    // An operator grant before the member ever signs in here (a gift, a migrated subscriber).
    await s.stack.operator.memberships.grantMembership({
      resourceId: tenant.resourceId,
      userId: member.id,
      pricingId: pricings.member,
      autorenew: false,
    });

    const response = await s.api('/authorization', {
      headers: { resource: tenant.publicKey },
      json: { email: member.email, password: member.password },
    });
    expect(response.status).toBe(200);
    // Only the JSON boolean true turns the setting on.
    const expected = setting === true ? [pricings.member] : [pricings.member, pricings.guest];
    expect(pricingIdsOf(response.body).sort()).toEqual(expected.sort());
  });
});
