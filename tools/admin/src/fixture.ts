import type { Pricing } from '@masthead/proto/catalog';
import type { AdminClients } from './clients.js';
import { fixtureSchema, type Fixture, type ResourceFixture } from './fixture-schema.js';

export { fixtureSchema, type Fixture } from './fixture-schema.js';

export interface LoadReport {
  resources: Array<{ publicKey: string; id: number; plans: number; pricings: number; members: number; ti_events: number }>;
}

/** Parses fixture JSON; throws with every problem listed. */
export function parseFixture(json: unknown): Fixture {
  const result = fixtureSchema.safeParse(json);
  if (!result.success) {
    throw new Error(`Invalid fixture:\n  ${result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('\n  ')}`);
  }
  return result.data;
}

/**
 * Loads a fixture through the internal APIs. Every step is an upsert, so loading the same file
 * again (each `npm start`) converges instead of duplicating.
 */
export async function loadFixture(clients: AdminClients, fixture: Fixture): Promise<LoadReport> {
  const report: LoadReport = { resources: [] };
  for (const partnerFixture of fixture.partners) {
    const partner = await clients.accounts.createPartner({ title: partnerFixture.title });
    for (const resourceFixture of partnerFixture.resources) {
      report.resources.push(await loadResource(clients, partner.id, resourceFixture));
    }
  }
  return report;
}

async function loadResource(clients: AdminClients, partnerId: number, fixture: ResourceFixture) {
  const upsertResource = (settings: Record<string, unknown>) =>
    clients.accounts.upsertResource({
      publicKey: fixture.public_key,
      title: fixture.title,
      host: fixture.host,
      origin: fixture.origin,
      partnerId,
      settings,
      allowedOrigins: fixture.allowed_origins,
    });
  let resource = await upsertResource(fixture.settings);

  const pricings = new Map<string, Pricing>();
  const planIds = new Map<string, number>();
  for (const planFixture of fixture.plans) {
    const parentId = planFixture.parent === undefined ? 0 : planIds.get(planFixture.parent);
    if (parentId === undefined)
      throw new Error(`${fixture.public_key}: plan "${planFixture.slug}" names parent "${planFixture.parent}", not listed before it`);
    const plan = await clients.plans.upsertPlan({
      resourceId: resource.id,
      slug: planFixture.slug,
      title: planFixture.title,
      active: planFixture.active,
      private: planFixture.private,
      fullAccess: planFixture.full_access,
      canOwnTeams: planFixture.can_own_teams,
      // Always sent, so that removing `parent` from the file clears it on the next load.
      parentPlanId: parentId,
    });
    planIds.set(planFixture.slug, plan.id);
    for (const pricingFixture of planFixture.pricings) {
      const pricing = await clients.pricings.upsertPricing({
        planId: plan.id,
        title: pricingFixture.title,
        price: pricingFixture.price,
        currency: pricingFixture.currency,
        period: pricingFixture.period,
        active: pricingFixture.active,
        private: pricingFixture.private,
        externalSourceIds: pricingFixture.external_source_ids,
        usersLimit: pricingFixture.users_limit,
        type: pricingFixture.type,
      });
      pricings.set(`${planFixture.slug}/${pricingFixture.title}`, pricing);
    }
  }
  const pricingOf = (ref: { plan: string; pricing: string }): Pricing => {
    const pricing = pricings.get(`${ref.plan}/${ref.pricing}`);
    if (!pricing) throw new Error(`${fixture.public_key}: no pricing "${ref.pricing}" in plan "${ref.plan}"`);
    return pricing;
  };

  if (fixture.default_subscription) {
    resource = await upsertResource({ ...fixture.settings, default_subscription_id: pricingOf(fixture.default_subscription).id });
  }

  for (const [mode, secretKey] of Object.entries(fixture.cardprovider_secret_keys)) {
    if (secretKey) await clients.connections.setSecretKey({ resourceId: resource.id, mode, secretKey });
  }

  for (const memberFixture of fixture.members) {
    const user = await clients.identity.upsertMember({
      resourceId: resource.id,
      email: memberFixture.email,
      password: memberFixture.password,
      role: memberFixture.role,
      firstName: memberFixture.first_name,
      lastName: memberFixture.last_name,
    });
    for (const membership of memberFixture.memberships) {
      await clients.memberships.grantMembership({
        resourceId: resource.id,
        userId: user.id,
        pricingId: pricingOf(membership).id,
        autorenew: membership.autorenew,
      });
    }
  }
  for (const eventFixture of fixture.ti_events) {
    const event = await clients.tiEvents.upsertEvent({
      resourceId: resource.id,
      title: eventFixture.title,
      description: eventFixture.description,
      active: eventFixture.active,
      photo: eventFixture.photo,
      startDate: eventFixture.start_date,
      endDate: eventFixture.end_date,
    });
    for (const ticket of eventFixture.tickets) {
      await clients.tiEvents.upsertTicket({
        tiEventId: event.id,
        title: ticket.title,
        description: ticket.description,
        quantity: ticket.quantity,
        price: ticket.price,
        currency: ticket.currency,
        active: ticket.active,
        private: ticket.private,
        unassignLimit: ticket.unassign_limit,
      });
    }
  }
  return {
    publicKey: resource.publicKey,
    id: resource.id,
    plans: fixture.plans.length,
    pricings: pricings.size,
    members: fixture.members.length,
    ti_events: fixture.ti_events.length,
  };
}
