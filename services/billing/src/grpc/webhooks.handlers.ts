import type { AsyncImplementation } from '@masthead/core/grpc';
import type { WebhookServiceService } from '@masthead/proto/billing/webhooks';
import type { WebhookService } from '../webhooks/webhook.service.js';

export function webhookHandlers(webhooks: WebhookService): AsyncImplementation<typeof WebhookServiceService> {
  return {
    handleCardProviderEvent: async ({ payload, signature }) => webhooks.handle(payload, signature),
  };
}
