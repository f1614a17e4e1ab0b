import type { AsyncImplementation } from '@masthead/core/grpc';
import type { WebhooksServiceService } from '@masthead/proto/integrations/webhooks';
import type { WebhookService } from '../webhooks/webhook.service.js';
import { WEBHOOK_TYPES } from '../webhooks/webhook-types.js';
import { toWebhookDelivery, toWebhookEndpoint } from './platform.wire.js';

export function webhooksHandlers(webhooks: WebhookService): AsyncImplementation<typeof WebhooksServiceService> {
  return {
    createWebhookEndpoint: async ({ resourceId, url, eventTypes, description }) => {
      const { endpoint, secret } = await webhooks.create({ resourceId, url, eventTypes, description });
      return { endpoint: toWebhookEndpoint(endpoint), secret };
    },
    listWebhookEndpoints: async ({ resourceId }) => ({ items: (await webhooks.list(resourceId)).map(toWebhookEndpoint) }),
    setWebhookEndpointActive: async ({ resourceId, endpointId, active }) =>
      toWebhookEndpoint(await webhooks.setActive(resourceId, endpointId, active)),
    listWebhookDeliveries: async ({ resourceId, endpointId, status, limit }) => ({
      items: (await webhooks.deliveries(resourceId, endpointId, status, limit)).map(toWebhookDelivery),
    }),
    replayWebhookDeliveries: async ({ resourceId, endpointId, deliveryIds, status, since }) => ({
      replayed: await webhooks.replay(resourceId, endpointId, deliveryIds, status, since),
    }),
    listWebhookEventTypes: async () => ({ items: WEBHOOK_TYPES.map(({ type, sourceEvent }) => ({ type, sourceEvent })) }),
  };
}
