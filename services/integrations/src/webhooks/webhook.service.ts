import { randomBytes } from 'node:crypto';
import { seal, type KeyRing } from '@masthead/core/secrets';
import { integrationsKeyRingMissing } from '../support/secrets.errors.js';
import { RETRY_WINDOW_MS } from './backoff.js';
import type { DeliveryRepository } from './delivery.repository.js';
import { destinationRefusal, type DestinationPolicy, type Resolver } from './destination.js';
import type { DeliveryStatus, WebhookAttemptRecord, WebhookDeliveryRecord } from './delivery.schema.js';
import { endpointSecretAad } from './dispatcher.js';
import type { EndpointRepository } from './endpoint.repository.js';
import type { WebhookEndpointRecord } from './endpoint.schema.js';
import { invalidDeliveryStatus, invalidSince, invalidWebhookType, invalidWebhookUrl, webhookEndpointNotFound } from './webhook.errors.js';
import { isWebhookType } from './webhook-types.js';

const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed'];
const DEFAULT_LOG_LIMIT = 50;
const MAX_LOG_LIMIT = 500;

export interface CreateEndpointCommand {
  resourceId: number;
  url: string;
  eventTypes: string[];
  description: string;
}

interface Deps {
  endpoints: EndpointRepository;
  deliveries: DeliveryRepository;
  ring: KeyRing | null;
  /** Where endpoints may point; loopback only outside production (local receivers, tests). */
  policy: DestinationPolicy;
  /** DNS by default; tests play a resolver of their own. */
  resolve?: Resolver;
  now: () => Date;
}

/** Operator calls on endpoints and their delivery log (see CONTEXT.md). */
export class WebhookService {
  constructor(private readonly deps: Deps) {}

  /** Answers the endpoint and its signing secret, which is shown this once. */
  async create(command: CreateEndpointCommand): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
    const url = await this.checkUrl(command.url);
    const eventTypes = [...new Set(command.eventTypes.map((type) => type.trim()).filter(Boolean))];
    const unknown = eventTypes.find((type) => !isWebhookType(type));
    if (unknown !== undefined) throw invalidWebhookType(unknown);
    if (!this.deps.ring) throw integrationsKeyRingMissing();
    // Standard Webhooks secrets: `whsec_` and base64 of 24 to 64 random bytes.
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const endpoint = await this.deps.endpoints.create({
      resource_id: command.resourceId,
      url,
      event_types: eventTypes,
      active: true,
      description: command.description.trim(),
      secret: seal(this.deps.ring, secret, endpointSecretAad(command.resourceId)),
    });
    return { endpoint, secret };
  }

  list(resourceId: number): Promise<WebhookEndpointRecord[]> {
    return this.deps.endpoints.listOfResource(resourceId);
  }

  async setActive(resourceId: number, endpointId: number, active: boolean): Promise<WebhookEndpointRecord> {
    const endpoint = await this.deps.endpoints.setActive(resourceId, endpointId, active);
    if (!endpoint) throw webhookEndpointNotFound();
    return endpoint;
  }

  async deliveries(
    resourceId: number,
    endpointId: number,
    status: string,
    limit: number,
  ): Promise<Array<WebhookDeliveryRecord & { attempt_log: WebhookAttemptRecord[] }>> {
    await this.endpoint(resourceId, endpointId);
    const size = limit > 0 ? Math.min(limit, MAX_LOG_LIMIT) : DEFAULT_LOG_LIMIT;
    return this.deps.deliveries.log(resourceId, endpointId, this.status(status, null), size);
  }

  /** Named deliveries, or those in `status` (default failed) since `since`; answers how many were put back in line. */
  async replay(resourceId: number, endpointId: number, ids: string[], status: string, since: string | undefined): Promise<number> {
    await this.endpoint(resourceId, endpointId);
    let from: Date | null = null;
    if (since !== undefined && since.trim() !== '') {
      from = new Date(since.trim());
      if (Number.isNaN(from.getTime())) throw invalidSince();
    }
    const selection = ids.length > 0 ? { ids } : { status: this.status(status, 'failed'), since: from };
    const now = this.deps.now();
    return this.deps.deliveries.replay(resourceId, endpointId, selection, now, new Date(now.getTime() + RETRY_WINDOW_MS));
  }

  private async endpoint(resourceId: number, endpointId: number): Promise<WebhookEndpointRecord> {
    const endpoint = await this.deps.endpoints.find(resourceId, endpointId);
    if (!endpoint) throw webhookEndpointNotFound();
    return endpoint;
  }

  /** '' → the default; `all` → any status. */
  private status(text: string, fallback: DeliveryStatus | null): DeliveryStatus | null {
    const value = text.trim();
    if (value === '') return fallback;
    if (value === 'all') return null;
    if (!STATUSES.includes(value as DeliveryStatus)) throw invalidDeliveryStatus();
    return value as DeliveryStatus;
  }

  /** An absolute URL without credentials or fragment, to an allowed destination (docs/adr/0240). */
  private async checkUrl(text: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(text.trim());
    } catch {
      throw invalidWebhookUrl('not an absolute URL');
    }
    if (url.username || url.password) throw invalidWebhookUrl('credentials do not belong in the URL');
    if (url.hash) throw invalidWebhookUrl('a fragment is never sent');
    const refusal = await destinationRefusal(url, this.deps.policy, this.deps.resolve);
    if (refusal) throw invalidWebhookUrl(refusal);
    return url.toString();
  }
}
