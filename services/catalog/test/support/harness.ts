import type { DomainEvent } from '@masthead/core/events';
import { CatalogServiceService } from '@masthead/proto/catalog';
import { startServiceHarness, type ServiceHarness } from '@masthead/service-testkit';
import { connect } from 'nats';
import { expect } from 'vitest';
import { loadCatalogConfig, startCatalogService } from '../../src/app.js';
import { recordEvents } from './events.js';

export interface CatalogHarness extends ServiceHarness<typeof CatalogServiceService> {
  /** Every event published since the harness started, in arrival order. */
  events: DomainEvent[];
  /** Every event so far, once the outbox is empty and NATS has delivered what it acknowledged. */
  settledEvents(): Promise<DomainEvent[]>;
}

/** The catalog service in-process over real FerretDB (or MongoDB) and NATS, with its events. */
export async function startCatalogHarness(): Promise<CatalogHarness> {
  const harness = await startServiceHarness({
    service: 'catalog',
    definition: CatalogServiceService,
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
    return { ...harness, events, settledEvents };
  } catch (error) {
    await harness.stop();
    throw error;
  }
}
