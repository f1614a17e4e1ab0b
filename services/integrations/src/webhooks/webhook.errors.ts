import { defineError } from '@masthead/core/errors';

/**
 * Thrown by CreateWebhookEndpoint for a URL that is not https (or http to a loopback host outside
 * production), or whose host is or resolves to an address webhooks never reach (docs/adr/0240).
 */
export const invalidWebhookUrl = defineError({ status: 400, code: 'invalid_url', description: 'url: <reason>' }, (reason: string) => ({
  description: `url: ${reason}`,
}));

/** Thrown by CreateWebhookEndpoint for an event type no endpoint can subscribe to (ListWebhookEventTypes lists them). */
export const invalidWebhookType = defineError(
  { status: 400, code: 'invalid_event_types', description: 'Unknown event type <type>' },
  (type: string) => ({ description: `Unknown event type ${type}` }),
);

/** Thrown by the endpoint and delivery calls when the resource has no such endpoint. */
export const webhookEndpointNotFound = defineError({
  status: 404,
  code: 'webhook_endpoint_not_found',
  description: 'Webhook endpoint not found',
});

/** Thrown by ListWebhookDeliveries and ReplayWebhookDeliveries for a status other than pending, delivered, failed (or all). */
export const invalidDeliveryStatus = defineError({
  status: 400,
  code: 'invalid_status',
  description: 'status must be pending, delivered, failed or all',
});

/** Thrown by ReplayWebhookDeliveries for a `since` that is no ISO 8601 time. */
export const invalidSince = defineError({ status: 400, code: 'invalid_since', description: 'since must be an ISO 8601 time' });
