import { createClient } from '@masthead/core/clients';
import { onEvent } from '@masthead/core/events';
import type { ServiceRegistration } from '@masthead/core/grpc';
import type { ServiceRuntime } from '@masthead/core/service';
import { CaptchaServiceService } from '@masthead/proto/integrations/captcha';
import { PublicEventsServiceService } from '@masthead/proto/integrations/public_events';
import { ResourceSettingsServiceService } from '@masthead/proto/integrations/resource_settings';
import { TemplatesServiceService } from '@masthead/proto/integrations/templates';
import { WebhooksServiceService } from '@masthead/proto/integrations/webhooks';
import { CaptchaRepository } from './captcha/captcha.repository.js';
import { captchaModel } from './captcha/captcha.schema.js';
import { CaptchaService, captchaSecretAad } from './captcha/captcha.service.js';
import type { IntegrationsConfig } from './config.js';
import { providerKeyRing } from './provider-config/provider-env.js';
import { EventNameRepository } from './events/event-name.repository.js';
import { EventNameService } from './events/event-names.service.js';
import { EventSubmissionService } from './events/event-submission.service.js';
import { captchaHandlers } from './grpc/captcha.handlers.js';
import { publicEventsHandlers } from './grpc/public-events.handlers.js';
import { resourceSettingsHandlers } from './grpc/resource-settings.handlers.js';
import { templatesHandlers } from './grpc/templates.handlers.js';
import { webhooksHandlers } from './grpc/webhooks.handlers.js';
import { EmbeddedSettingsService } from './settings/embedded-settings.service.js';
import { TemplateRepository } from './templates/template.repository.js';
import { TemplateService } from './templates/template.service.js';
import { DeliveryRepository } from './webhooks/delivery.repository.js';
import { WebhookDeliveryRunner } from './webhooks/delivery-runner.js';
import { endpointSecretAad, WebhookDispatcher } from './webhooks/dispatcher.js';
import { EndpointRepository } from './webhooks/endpoint.repository.js';
import { endpointModel } from './webhooks/endpoint.schema.js';
import { resealField } from './support/reseal.js';
import { WebhookIngest } from './webhooks/ingest.js';
import { httpWebhookSender } from './webhooks/sender.js';
import { WebhookService } from './webhooks/webhook.service.js';

/** What the embedded settings, event submission and webhook areas add to the process. */
export interface PlatformAreas {
  services: ServiceRegistration<unknown>[];
  stop(): Promise<void>;
}

/**
 * Composition of the platform areas (document 2 K and L, signed outbound webhooks):
 * repositories → domain services → gRPC handlers, and the webhook delivery in the background.
 */
export async function startPlatformAreas(runtime: ServiceRuntime, config: IntegrationsConfig): Promise<PlatformAreas> {
  const { db, events, logger, nats } = runtime;
  // One ring for every secret integrations stores (docs/adr/0171).
  const ring = providerKeyRing(config);
  if (!ring) runtime.logger.warn('INTEGRATIONS_SECRETS_KEYS is not set: captcha and webhook secrets can be neither stored nor used');
  const now = () => new Date();
  // Local receivers on loopback are for development and test only (docs/adr/0240).
  const destinations = { allowLoopback: config.MASTHEAD_ENV !== 'production' };
  const accounts = createClient('accounts', { accounts: config.ACCOUNTS_ADDR }, { defaultDeadlineMs: config.GRPC_DEADLINE_MS });

  const templateRows = new TemplateRepository(db);
  const captchaRows = new CaptchaRepository(db);
  const eventNameRows = new EventNameRepository(db);
  const endpointRows = new EndpointRepository(db);
  const deliveryRows = new DeliveryRepository(db);
  await Promise.all([templateRows, captchaRows, eventNameRows, endpointRows, deliveryRows].map((rows) => rows.ready()));

  if (ring) {
    // A rotation: values sealed with an older key of the ring move to the current one.
    const resealed =
      (await resealField(captchaModel(db), 'secret_key', ring, (record) => captchaSecretAad(record._id), logger)) +
      (await resealField(endpointModel(db), 'secret', ring, (record) => endpointSecretAad(record.resource_id), logger));
    if (resealed > 0) logger.info({ resealed }, 'integrations secrets re-sealed with the current key');
  }

  const templates = new TemplateService({ templates: templateRows });
  const settings = new EmbeddedSettingsService({ accounts, cacheTtlMs: config.SETTINGS_CACHE_TTL_MS });
  const captcha = new CaptchaService({ captcha: captchaRows, ring, cacheTtlMs: config.SETTINGS_CACHE_TTL_MS });
  const eventNames = new EventNameService({ names: eventNameRows, events, cacheTtlMs: config.SETTINGS_CACHE_TTL_MS });
  await eventNames.seed();
  const submissions = new EventSubmissionService({ names: eventNames, events, logger });
  const webhooks = new WebhookService({
    endpoints: endpointRows,
    deliveries: deliveryRows,
    ring,
    policy: destinations,
    now,
  });

  // Cached copies follow operators' changes made through other processes (the subscriptions end
  // when the runtime drains its NATS connection).
  onEvent(nats, 'resource_updated', logger, (event) => {
    if (typeof event.resource_id === 'number') settings.forget(event.resource_id);
  });
  onEvent(nats, 'event_names_updated', logger, () => eventNames.forget());

  let runner: WebhookDeliveryRunner | null = null;
  if (config.WEBHOOKS_ENABLED) {
    const dispatcher = new WebhookDispatcher({
      endpoints: endpointRows,
      deliveries: deliveryRows,
      ring,
      send: httpWebhookSender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, policy: destinations }),
      now,
      leaseMs: config.WEBHOOK_LEASE_MS,
      concurrency: config.WEBHOOK_CONCURRENCY,
      logger,
    });
    const ingest = new WebhookIngest({
      nats,
      endpoints: endpointRows,
      deliveries: deliveryRows,
      logger,
      // One set of durable consumers per deployment, which its database prefix names.
      durablePrefix: config.MONGO_DB_PREFIX,
      ackWaitMs: config.WEBHOOK_ACK_WAIT_MS,
      streamReplicas: config.EVENT_STREAM_REPLICAS,
      now,
      onRecorded: () => runner?.nudge(),
    });
    runner = new WebhookDeliveryRunner(ingest, dispatcher, config.WEBHOOK_POLL_MS, logger);
    runner.start();
  }

  return {
    services: [
      {
        name: 'masthead.integrations.v1.TemplatesService',
        definition: TemplatesServiceService,
        implementation: templatesHandlers(templates),
      },
      {
        name: 'masthead.integrations.v1.ResourceSettingsService',
        definition: ResourceSettingsServiceService,
        implementation: resourceSettingsHandlers(settings),
      },
      { name: 'masthead.integrations.v1.CaptchaService', definition: CaptchaServiceService, implementation: captchaHandlers(captcha) },
      {
        name: 'masthead.integrations.v1.PublicEventsService',
        definition: PublicEventsServiceService,
        implementation: publicEventsHandlers(submissions, eventNames),
      },
      { name: 'masthead.integrations.v1.WebhooksService', definition: WebhooksServiceService, implementation: webhooksHandlers(webhooks) },
    ] as ServiceRegistration<unknown>[],
    async stop() {
      await runner?.stop();
      accounts.close();
    },
  };
}
