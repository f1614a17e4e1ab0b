import { parseOrThrow } from '@masthead/core/errors';
import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery } from '@masthead/core/pagination';
import type { PricingsServiceService } from '@masthead/proto/catalog/pricings';
import type { ExternalSourceLookup } from '../pricings/external-source.lookup.js';
import { upsertPricingCommand } from '../pricings/pricing.command.js';
import type { PricingService } from '../pricings/pricing.service.js';
import { toPricing } from './catalog.wire.js';

interface Deps {
  pricings: PricingService;
  externalSources: ExternalSourceLookup;
}

export function pricingsHandlers({ pricings, externalSources }: Deps): AsyncImplementation<typeof PricingsServiceService> {
  return {
    listPricings: async ({ resourceId, query }) => {
      const page = await pricings.listPublic(resourceId, fromPageQuery(query));
      return {
        items: page.items.map(({ pricing, plan }) => toPricing(pricing, plan)),
        paginator: page.paginator,
      };
    },
    getPricing: async ({ resourceId, pricingId }) => {
      const { pricing, plan } = await pricings.getVisible(resourceId, pricingId);
      return toPricing(pricing, plan);
    },
    findPricingByExternalSource: async ({ resourceId, externalSourceId }) => {
      const view = await externalSources.find(resourceId, externalSourceId);
      return toPricing(view.pricing, view.plan);
    },
    upsertPricing: async (request) => {
      const view = await pricings.upsert(parseOrThrow(upsertPricingCommand, request));
      return toPricing(view.pricing, view.plan);
    },
  };
}
