import type { CaptchaSummary } from '@masthead/proto/integrations/captcha';
import type { EventName } from '@masthead/proto/integrations/public_events';
import type { Template } from '@masthead/proto/integrations/templates';
import type { WebhookDelivery, WebhookEndpoint } from '@masthead/proto/integrations/webhooks';
import type { CaptchaRecord } from '../captcha/captcha.schema.js';
import type { EventNameRecord } from '../events/event-name.schema.js';
import type { TemplateRecord } from '../templates/template.schema.js';
import type { WebhookAttemptRecord, WebhookDeliveryRecord } from '../webhooks/delivery.schema.js';
import type { WebhookEndpointRecord } from '../webhooks/endpoint.schema.js';

/*
 * Records → messages for the embedded settings, event and webhook areas: services return full
 * data; the gateway (or the admin CLI) decides what a caller sees.
 */

const iso = (date: Date): string => date.toISOString();
const isoOrUndefined = (date: Date | null | undefined): string | undefined => (date ? date.toISOString() : undefined);

export const toTemplate = (record: TemplateRecord): Template => ({
  id: record._id,
  resourceId: record.resource_id,
  name: record.name,
  version: record.version,
  title: record.title ?? undefined,
  slug: record.slug ?? undefined,
  template: record.template,
  javascript: record.javascript,
  css: record.css,
  settings: record.settings ?? {},
  active: record.active,
  published: record.published,
  createdAt: iso(record.created_at),
  updatedAt: iso(record.updated_at),
});

export const toCaptchaSummary = (resourceId: number, record: CaptchaRecord | null): CaptchaSummary => ({
  resourceId,
  configured: record !== null,
  active: record?.active === true,
  publicKey: record?.public_key ?? undefined,
  hasSecretKey: Boolean(record?.secret_key),
  secretKeyLast4: record?.secret_key_last4 ?? '',
  keyId: record?.secret_key?.key_id ?? '',
  updatedAt: record ? iso(record.updated_at) : '',
});

export const toEventName = (record: EventNameRecord): EventName => ({
  name: record._id,
  private: record.private,
  description: record.description,
  createdAt: iso(record.created_at),
  updatedAt: iso(record.updated_at),
});

/** Never the secret: only the ID of the key that seals it. */
export const toWebhookEndpoint = (record: WebhookEndpointRecord): WebhookEndpoint => ({
  id: record._id,
  resourceId: record.resource_id,
  url: record.url,
  eventTypes: record.event_types,
  active: record.active,
  description: record.description,
  secretKeyId: record.secret.key_id,
  createdAt: iso(record.created_at),
  updatedAt: iso(record.updated_at),
});

export const toWebhookDelivery = (record: WebhookDeliveryRecord & { attempt_log: WebhookAttemptRecord[] }): WebhookDelivery => ({
  id: record._id,
  webhookId: record.webhook_id,
  endpointId: record.endpoint_id,
  eventId: record.event_id,
  type: record.type,
  status: record.status,
  attempts: record.attempts,
  nextAttemptAt: isoOrUndefined(record.next_attempt_at),
  retryUntil: iso(record.retry_until),
  createdAt: iso(record.created_at),
  deliveredAt: isoOrUndefined(record.delivered_at),
  lastStatusCode: record.last_status_code ?? undefined,
  lastError: record.last_error ?? undefined,
  attemptLog: record.attempt_log.map((attempt) => ({
    attempt: attempt.attempt,
    startedAt: iso(attempt.started_at),
    finishedAt: isoOrUndefined(attempt.finished_at),
    outcome: attempt.outcome,
    statusCode: attempt.status_code ?? undefined,
    error: attempt.error ?? undefined,
  })),
});
