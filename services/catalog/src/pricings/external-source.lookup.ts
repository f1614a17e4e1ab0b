import { isDependencyFailure, isServiceError, subscriptionNotFound } from '@masthead/core/errors';
import type { Logger } from '@masthead/core/logging';
import type { PlanRepository } from '../plans/plan.repository.js';
import {
  externalSourceIdRequired,
  externalSubscriptionFailed,
  pricingPlanNotFound,
  subscriptionSourceIdRequired,
} from './pricing.errors.js';
import type { PricingRepository } from './pricing.repository.js';
import type { PricingView } from './pricing.service.js';

interface ExternalSourceLookupDeps {
  pricings: PricingRepository;
  plans: PlanRepository;
  logger: Logger;
}

/**
 * "Sanitized, lowercased, trimmed" (document 2, section I): HTML tags and control characters
 * are removed, then surrounding spaces, then the text is lowercased.
 */
export function sanitizeExternalSourceId(raw: string): string {
  return raw
    .replace(/<[^>]*>/g, '')
    .replace(/\p{Cc}/gu, '')
    .trim()
    .toLowerCase();
}

/** True when `id` (sanitized) is one complete comma-separated token of `list`, in any case. */
export function hasExternalSourceToken(list: string, id: string): boolean {
  return list.split(',').some((token) => token.trim().toLowerCase() === id);
}

/**
 * GET /integrations/external/subscription: the Pricing of a resource mapped to an external
 * product ID. Active, public or owned status is not required. The spec gives several matches no
 * stable winner; here the lowest Pricing ID wins, so that repeated lookups agree.
 */
export class ExternalSourceLookup {
  constructor(private readonly deps: ExternalSourceLookupDeps) {}

  async find(resourceId: number, rawId: string | undefined): Promise<PricingView> {
    if (rawId === undefined || rawId === '') throw externalSourceIdRequired();
    const id = sanitizeExternalSourceId(rawId);
    if (id === '') throw subscriptionSourceIdRequired();
    try {
      // Case-insensitive substring prefilter in storage, then whole-token matching here.
      const candidates = await this.deps.pricings.findByExternalSourceText(resourceId, id);
      const pricing = candidates.find((candidate) => hasExternalSourceToken(candidate.external_source_ids, id));
      if (!pricing) throw subscriptionNotFound();
      const plan = await this.deps.plans.findAnyById(pricing.plan_id);
      if (!plan || plan.resource_id !== resourceId) throw pricingPlanNotFound();
      return { pricing, plan };
    } catch (error) {
      // An unreachable database is the transport's 503, not this operation's error (docs/adr/0181).
      if (isServiceError(error) || isDependencyFailure(error)) throw error;
      this.deps.logger.error({ err: error, resource_id: resourceId }, 'external subscription lookup failed');
      throw externalSubscriptionFailed();
    }
  }
}
