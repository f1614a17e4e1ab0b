import { PartitionedReadCache } from '@masthead/core/cache';
import { onEvent, type NatsLink } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { ServiceClients } from '../clients.js';

type PlansClient = ServiceClients['plans'];

/**
 * Catalog's public plan answers (ListPlans per page request, GetPlan per plan) kept per resource
 * for a short time (ADR 0209): a guest's read of the pricing page then costs no call. Catalog
 * announces every plan or pricing write (`catalog_updated`), which drops the resource's answers
 * at once; the lifetime bounds what a lost announcement leaves stale. Answers are the decoded
 * messages, shared by every request (handlers never change them), so a shaped body memoised per
 * answer (`sharedJsonBodies`) is reused too.
 */
export class PlanReadCache {
  private readonly answers: PartitionedReadCache<number>;

  constructor(ttlMs: number) {
    this.answers = new PartitionedReadCache(ttlMs);
  }

  listen(nats: NatsLink, logger: Logger): void {
    onEvent(nats, 'catalog_updated', logger, (event) => {
      if (typeof event.resource_id === 'number') this.answers.invalidate(event.resource_id);
    });
  }

  read<T>(resourceId: number, key: string, load: () => Promise<T>): Promise<T> {
    return this.answers.read(resourceId, key, load);
  }
}

/** The plans client with its two public reads served from the cache. */
export function withPlanReadCache(plans: PlansClient, cache: PlanReadCache): PlansClient {
  return {
    ...plans,
    listPlans: (request, options) =>
      cache.read(request.resourceId, `list:${JSON.stringify(request.query ?? null)}`, () => plans.listPlans(request, options)),
    getPlan: (request, options) => cache.read(request.resourceId, `plan:${request.planId}`, () => plans.getPlan(request, options)),
  };
}
