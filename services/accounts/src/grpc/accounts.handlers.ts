import type { AsyncImplementation } from '@masthead/core/grpc';
import type { AccountsServiceService, Partner, Resource } from '@masthead/proto/accounts';
import { partnerTitleRequired } from '../partners/partner.errors.js';
import type { PartnerRepository } from '../partners/partner.repository.js';
import type { PartnerRecord } from '../partners/partner.schema.js';
import type { ResourceRecord } from '../resources/resource.schema.js';
import type { ResourceService } from '../resources/resource.service.js';

interface Deps {
  resources: ResourceService;
  partners: PartnerRepository;
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

const toPartner = (record: PartnerRecord): Partner => ({
  id: record._id,
  title: record.title,
  active: record.active,
  settings: record.settings ?? {},
});

/** Partners and resources (the accounts area proper). */
export function accountsHandlers({ resources, partners }: Deps): AsyncImplementation<typeof AccountsServiceService> {
  return {
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
    listPartnerResources: async ({ partnerId }) => ({ items: (await resources.listOfPartner(partnerId)).map(toResource) }),
    createPartner: async ({ title }) => {
      if (!title.trim()) throw partnerTitleRequired();
      const partner = (await partners.findByTitle(title.trim())) ?? (await partners.create(title.trim()));
      return toPartner(partner);
    },
    getEffectiveSettings: async ({ id }) => ({ settings: await resources.effectiveSettings(id) }),
    setPartnerSettings: async ({ partnerId, settings }) => toPartner(await resources.setPartnerSettings(partnerId, settings ?? {})),
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
