import { httpError, isServiceError } from '@masthead/core/errors';
import type { Logger } from '@masthead/core/logging';
import type { PlanRepository } from '../plans/plan.repository.js';
import type { PricingRepository } from './pricing.repository.js';
import type { PricingView } from './pricing.service.js';

interface ExternalSourceLookupDeps {
  pricings: PricingRepository;
  plans: PlanRepository;
  logger: Logger;
}

/** Thrown when the query has no `external_source_id` string, or an empty one. */
export const externalSourceIdRequired = () => httpError(409, 'external_source_id_required', 'external_source_id is required');

/** Thrown when `external_source_id` was given but nothing is left of it once sanitized. */
export const subscriptionSourceIdRequired = () =>
  httpError(409, 'subscription_source_id_required', 'external_source_id is empty once tags, control characters and spaces are removed');

/** Thrown when no Pricing of the resource carries the ID as one of its tokens. */
export const subscriptionNotFound = () => httpError(404, 'subscription_not_found', 'Subscription not found');

/** Thrown when the matched Pricing's plan no longer exists, so the Pricing cannot be shown. */
export const pricingPlanNotFound = () => httpError(404, 'not_found', 'Not found');

/**
 * Thrown when the lookup itself fails (storage error, unreadable stored row). The description
 * speaks of creation although this is a lookup: kept because the spec says the literal text
 * mentions creation (document 2, section I).
 */
export const externalSubscriptionFailed = () => httpError(400, 'external_subscription_failed', 'Failed to create external subscription');

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
      if (isServiceError(error)) throw error;
      this.deps.logger.error({ err: error, resource_id: resourceId }, 'external subscription lookup failed');
      throw externalSubscriptionFailed();
    }
  }
}
