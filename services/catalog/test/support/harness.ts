import type { DomainEvent } from '@masthead/core/events';
import { PlansServiceService } from '@masthead/proto/catalog/plans';
import { processClient, startServiceHarness, type ProcessClient, type ServiceHarness } from '@masthead/service-testkit';
import { connect } from 'nats';
import { expect } from 'vitest';
import { loadCatalogConfig, startCatalogService } from '../../src/app.js';
import { recordEvents } from './events.js';

/** The catalog's area services, as one client. */
export const CATALOG_CLIENTS = ['plans', 'pricings', 'memberships', 'memberViews'] as const;
export type CatalogClient = ProcessClient<(typeof CATALOG_CLIENTS)[number]>;

export interface CatalogHarness extends Omit<ServiceHarness<typeof PlansServiceService>, 'client'> {
  client: CatalogClient;
  /** Every event published since the harness started, in arrival order. */
  events: DomainEvent[];
  /** Every event so far, once the outbox is empty and NATS has delivered what it acknowledged. */
  settledEvents(): Promise<DomainEvent[]>;
}

/** The catalog service in-process over real FerretDB (or MongoDB) and NATS, with its events. */
export async function startCatalogHarness(): Promise<CatalogHarness> {
  const harness = await startServiceHarness({
    service: 'catalog',
    definition: PlansServiceService,
    start: (env) => startCatalogService(loadCatalogConfig(env)),
  });
  try {
    const nats = await connect({ servers: harness.infra.natsUrl });
    harness.onStop(() => nats.close());
    const events = await recordEvents(nats);
    const settledEvents = async () => {
      await expect.poll(() => harness.db.collection('outbox').countDocuments(), { timeout: 10_000 }).toBe(0);
      // The server fans a message out before it acknowledges the publish; one round trip after
      // the last acknowledgement, every message has reached this subscriber.
      await nats.flush();
      return events;
    };
    const client = processClient(CATALOG_CLIENTS, harness.address);
    harness.onStop(async () => client.close());
    return { ...harness, client, events, settledEvents };
  } catch (error) {
    await harness.stop();
    throw error;
  }
}
