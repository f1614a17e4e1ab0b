import { defineError } from '@masthead/core/errors';

/** The `Stripe-Signature` header is missing or does not verify with any endpoint secret, or is dated more than 300 s from now. */
export const invalidWebhookSignature = defineError({
  status: 400,
  code: 'invalid_signature',
  description: 'Webhook signature verification failed',
});

/** No endpoint secret is configured (CARDPROVIDER_WEBHOOK_SECRETS): the provider retries later. */
export const webhookNotConfigured = defineError({
  status: 503,
  code: 'webhook_not_configured',
  description: 'Card-provider webhooks are not configured',
});

/** The same event is being handled by another delivery right now: the provider retries later. */
export const webhookInProgress = defineError({ status: 409, code: 'webhook_in_progress', description: 'This event is being handled' });

/** The provider could not be asked for the object's current state: the provider retries later. */
export const webhookProviderUnavailable = defineError({
  status: 503,
  code: 'webhook_processing_failed',
  description: 'The event could not be applied now; it will be retried',
});

/** A body that verifies but is no provider event: not a JSON object with `id`, `type` and `data.object` (docs/adr/0231). */
export const invalidWebhookPayload = defineError({
  status: 400,
  code: 'invalid_webhook_payload',
  description: 'Webhook payload is not a card-provider event',
});
