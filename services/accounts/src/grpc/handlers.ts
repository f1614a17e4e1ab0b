import type { AsyncImplementation } from '@masthead/core/grpc';
import { httpError } from '@masthead/core/errors';
import type { AccountsServiceService, Resource } from '@masthead/proto/accounts';
import type { PartnerRepository } from '../partners/partner.repository.js';
import type { ResourceRecord } from '../resources/resource.schema.js';
import type { ResourceService } from '../resources/resource.service.js';
import { localizationHandlers, type LocalizationDeps } from './localization.handlers.js';

interface Deps {
  resources: ResourceService;
  partners: PartnerRepository;
  localization: LocalizationDeps;
}

const toResource = (record: ResourceRecord): Resource => ({
  id: record._id,
  publicKey: record.public_key,
  title: record.title,
  host: record.host ?? undefined,
  origin: record.origin ?? undefined,
  partnerId: record.partner_id,
  active: record.active,
  settings: record.settings ?? {},
  allowedOrigins: record.allowed_origins ?? [],
});

export function accountsHandlers({ resources, partners, localization }: Deps): AsyncImplementation<typeof AccountsServiceService> {
  return {
    ...localizationHandlers(localization),
    resolveResource: async ({ publicKey }) => toResource(await resources.resolve(publicKey)),
    getResource: async ({ id }) => toResource(await resources.get(id)),
    getResourceConfig: async ({ id }) => {
      const view = await resources.config(id);
      return {
        publicKey: view.publicKey,
        origin: view.origin ?? undefined,
        paymentsInLiveMode: view.paymentsInLiveMode,
        webAppConfig: view.webAppConfig ?? undefined,
        defaultPaymentSystem: view.defaultPaymentSystem,
        cardproviderPublicKey: view.cardproviderPublicKey ?? undefined,
        appId: view.appId,
        locationId: view.locationId,
      };
    },
    listAllowedOrigins: async () => ({ origins: await resources.allowedOrigins() }),
    createPartner: async ({ title }) => {
      if (!title.trim()) throw httpError(400, 'invalid_title', 'title is required');
      const partner = (await partners.findByTitle(title.trim())) ?? (await partners.create(title.trim()));
      return { id: partner._id, title: partner.title, active: partner.active };
    },
    upsertResource: async (request) =>
      toResource(
        await resources.upsert({
          publicKey: request.publicKey,
          title: request.title,
          host: request.host ?? null,
          origin: request.origin ?? null,
          partnerId: request.partnerId,
          settings: request.settings ?? {},
          allowedOrigins: request.allowedOrigins,
        }),
      ),
  };
}
