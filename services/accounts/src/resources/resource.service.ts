import { resourceNotExists } from '@masthead/core/errors';
import type { EventPublisher } from '@masthead/core/events';
import { partnerNotExists } from '../partners/partner.errors.js';
import type { PartnerRepository } from '../partners/partner.repository.js';
import { invalidPublicKey } from './resource.errors.js';
import type { ResourceRepository } from './resource.repository.js';
import type { ResourceRecord } from './resource.schema.js';
import { inheritSettings } from './settings.defaults.js';
import type { PartnerRecord } from '../partners/partner.schema.js';

export interface UpsertResourceCommand {
  publicKey: string;
  title: string;
  host: string | null;
  origin: string | null;
  partnerId: number;
  settings: Record<string, unknown>;
  allowedOrigins: string[];
}

/** The member-facing configuration of GET /resource; secrets never appear here. */
export interface ResourceConfigView {
  publicKey: string;
  origin: string | null;
  paymentsInLiveMode: boolean;
  webAppConfig: Record<string, unknown> | null;
  defaultPaymentSystem: string;
  cardproviderPublicKey?: string | null;
  appId?: string;
  locationId?: string;
}

interface ResourceServiceDeps {
  resources: ResourceRepository;
  partners: PartnerRepository;
  events: EventPublisher;
}

const PUBLIC_KEY_PATTERN = /^[A-Za-z0-9_-]{3,128}$/;
export const DEFAULT_PAYMENT_SYSTEM = 'cardprovider';

export class ResourceService {
  constructor(private readonly deps: ResourceServiceDeps) {}

  ready(): Promise<void> {
    return this.deps.resources.ready();
  }

  /** Active resource by public key; 404 resource_not_exists otherwise. */
  async resolve(publicKey: string): Promise<ResourceRecord> {
    const resource = PUBLIC_KEY_PATTERN.test(publicKey) ? await this.deps.resources.findByPublicKey(publicKey) : null;
    if (!resource || !resource.active) throw resourceNotExists();
    return resource;
  }

  async get(id: number): Promise<ResourceRecord> {
    const resource = await this.deps.resources.findById(id);
    if (!resource) throw resourceNotExists();
    return resource;
  }

  /**
   * The resource's settings as inherited: its own over its partner's over the deployment's
   * defaults (docs/adr/0170). 404 resource_not_exists when unknown.
   */
  async effectiveSettings(id: number): Promise<Record<string, unknown>> {
    const resource = await this.get(id);
    const partner = await this.deps.partners.findById(resource.partner_id);
    return inheritSettings(resource.settings, partner?.settings);
  }

  /**
   * Replaces a partner's settings and announces `resource_updated` for each of its active
   * resources, whose inherited settings changed with them. 404 partner_not_exists when unknown.
   */
  async setPartnerSettings(partnerId: number, settings: Record<string, unknown>): Promise<PartnerRecord> {
    const partner = await this.deps.partners.setSettings(partnerId, settings);
    if (!partner) throw partnerNotExists();
    for (const resource of await this.deps.resources.listActiveOfPartner(partnerId)) {
      await this.deps.events.publish({ name: 'resource_updated', resourceId: resource._id, payload: { public_key: resource.public_key } });
    }
    return partner;
  }

  async config(id: number): Promise<ResourceConfigView> {
    return toConfigView(await this.get(id));
  }

  /**
   * The active resources of an active partner (the grouped member reads of document 1 E); none
   * when the partner is unknown or inactive.
   */
  async listOfPartner(partnerId: number): Promise<ResourceRecord[]> {
    const partner = partnerId > 0 ? await this.deps.partners.findById(partnerId) : null;
    if (!partner?.active) return [];
    return this.deps.resources.listActiveOfPartner(partnerId);
  }

  allowedOrigins(): Promise<string[]> {
    return this.deps.resources.allowedOrigins();
  }

  async upsert(command: UpsertResourceCommand): Promise<ResourceRecord> {
    if (!PUBLIC_KEY_PATTERN.test(command.publicKey)) {
      throw invalidPublicKey();
    }
    if (!(await this.deps.partners.findById(command.partnerId))) {
      throw partnerNotExists();
    }
    const fields = {
      public_key: command.publicKey,
      title: command.title,
      host: command.host,
      origin: command.origin,
      partner_id: command.partnerId,
      active: true,
      settings: command.settings,
      allowed_origins: command.allowedOrigins,
    };
    const existing = await this.deps.resources.findByPublicKey(command.publicKey);
    const saved = existing ? await this.deps.resources.update(existing._id, fields) : await this.deps.resources.insert(fields);
    if (!saved) throw resourceNotExists();
    // Gateways and services cache resources; this event tells them to drop their copy.
    await this.deps.events.publish({ name: 'resource_updated', resourceId: saved._id, payload: { public_key: saved.public_key } });
    return saved;
  }
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function toConfigView(resource: ResourceRecord): ResourceConfigView {
  const settings = resource.settings ?? {};
  const liveMode = typeof settings['payments_in_live_mode'] === 'boolean' ? settings['payments_in_live_mode'] : true;
  const paymentSystem = typeof settings['default_paysystem'] === 'string' ? settings['default_paysystem'] : DEFAULT_PAYMENT_SYSTEM;
  const view: ResourceConfigView = {
    publicKey: resource.public_key,
    origin: resource.origin,
    paymentsInLiveMode: liveMode,
    // Only an enabled identity-provider configuration is exposed (document 1, GET /resource).
    webAppConfig: settings['idp_auth'] === true ? asRecord(settings['idp_web_app_config']) : null,
    defaultPaymentSystem: paymentSystem,
  };
  if (paymentSystem === DEFAULT_PAYMENT_SYSTEM) {
    const key = liveMode ? settings['cardprovider_public_key_live'] : settings['cardprovider_public_key_test'];
    view.cardproviderPublicKey = typeof key === 'string' ? key : null;
  } else {
    if (typeof settings['app_id'] === 'string') view.appId = settings['app_id'];
    if (typeof settings['location_id'] === 'string') view.locationId = settings['location_id'];
  }
  return view;
}
