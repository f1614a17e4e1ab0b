import { readFile } from 'node:fs/promises';
import type { CaptchaSummary } from '@masthead/proto/integrations/captcha';
import type { Template } from '@masthead/proto/integrations/templates';
import type { WebhookDelivery, WebhookEndpoint } from '@masthead/proto/integrations/webhooks';
import { integer, list, optional, readStdin, text, UsageError, type Values } from './args.js';
import type { AdminClients } from './clients.js';

/**
 * Operator commands of the embedded settings, event and webhook areas (integrations,
 * docs/adr/0170–0174), and the partner settings those inherit from (accounts).
 */
export const PLATFORM_USAGE = `
  set-partner-settings --partner-id N --settings JSON
                                        replaces the partner's settings, which its resources inherit
                                        where their own do not set a key (GET /integrations/resource-settings)
  set-template --resource-id N --name NAME --version V [--title T] [--slug S] [--html FILE]
               [--js FILE] [--css FILE] [--settings JSON] [--inactive] [--unpublished]
                                        creates or replaces (every field) that version of the template
                                        (GET /integrations/templates/{name}); active and published unless told
  list-templates --resource-id N        names, versions and flags (not the bodies)
  set-captcha --resource-id N [--public-key K] [--active | --inactive] [--secret-key-stdin]
                                        the challenge service's keys; --resource-id 0 is the global
                                        fallback; the secret is read from standard input, stored sealed
                                        (INTEGRATIONS_SECRETS_KEYS) and never shown; an empty key clears it
  show-captcha --resource-id N          what is stored, the secret's last four characters at most
  set-event-name --name N [--private] [--description D]
                                        allows an event name in POST /user/event (global), or makes it
                                        private (refused); page_view ships public
  list-event-names
  create-webhook-endpoint --resource-id N --url https://… [--event-type T ...] [--description D]
                                        subscribes an endpoint to signed webhooks (every type without
                                        --event-type); prints the signing secret (whsec_…) once
  list-webhook-endpoints --resource-id N
  pause-webhook-endpoint --resource-id N --endpoint-id N      (resume-webhook-endpoint to resume)
  list-webhook-deliveries --resource-id N --endpoint-id N [--status pending|delivered|failed] [--limit N]
                                        the endpoint's delivery log, newest first, with every attempt
  replay-webhook-deliveries --resource-id N --endpoint-id N [--delivery-id ID ...]
                            [--status failed|delivered|all] [--since ISO]
                                        sends them again with the same webhook-id (default: the failed ones)
  list-webhook-event-types              the types an endpoint can subscribe to
`;

const jsonObject = (values: Values, name: string): Record<string, unknown> => {
  const raw = optional(values, name);
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new UsageError(`--${name} must be JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`--${name} must be a JSON object`);
  return parsed as Record<string, unknown>;
};

const fileText = async (values: Values, name: string): Promise<string> => {
  const path = optional(values, name);
  return path === undefined ? '' : readFile(path, 'utf8');
};

/** A template as operators list it: flags and sizes, not the bodies. */
const showTemplate = (template: Template) => ({
  id: template.id,
  name: template.name,
  version: template.version,
  title: template.title ?? null,
  slug: template.slug ?? null,
  active: template.active,
  published: template.published,
  bytes: { template: template.template.length, javascript: template.javascript.length, css: template.css.length },
  updated_at: template.updatedAt,
});

/** Never the secret (docs/adr/0170). */
const showCaptcha = (captcha: CaptchaSummary) => ({
  resource_id: captcha.resourceId,
  configured: captcha.configured,
  active: captcha.active,
  public_key: captcha.publicKey ?? null,
  has_secret_key: captcha.hasSecretKey,
  secret_key_last4: captcha.secretKeyLast4 || null,
  key_id: captcha.keyId || null,
  updated_at: captcha.updatedAt || null,
});

const showEndpoint = (endpoint: WebhookEndpoint | undefined) =>
  endpoint && {
    id: endpoint.id,
    resource_id: endpoint.resourceId,
    url: endpoint.url,
    event_types: endpoint.eventTypes,
    active: endpoint.active,
    description: endpoint.description,
    secret_key_id: endpoint.secretKeyId,
    created_at: endpoint.createdAt,
  };

const showDelivery = (delivery: WebhookDelivery) => ({
  id: delivery.id,
  webhook_id: delivery.webhookId,
  type: delivery.type,
  status: delivery.status,
  attempts: delivery.attempts,
  next_attempt_at: delivery.nextAttemptAt ?? null,
  retry_until: delivery.retryUntil,
  created_at: delivery.createdAt,
  delivered_at: delivery.deliveredAt ?? null,
  last_status_code: delivery.lastStatusCode ?? null,
  last_error: delivery.lastError ?? null,
  attempt_log: delivery.attemptLog.map((attempt) => ({
    attempt: attempt.attempt,
    outcome: attempt.outcome,
    started_at: attempt.startedAt,
    finished_at: attempt.finishedAt ?? null,
    status_code: attempt.statusCode ?? null,
    error: attempt.error ?? null,
  })),
});

const endpointRef = (values: Values) => ({ resourceId: integer(values, 'resource-id'), endpointId: integer(values, 'endpoint-id') });

export const PLATFORM_COMMANDS: Record<string, (clients: AdminClients, values: Values) => Promise<unknown>> = {
  'set-partner-settings': async (clients, values) => {
    const partner = await clients.accounts.setPartnerSettings({
      partnerId: integer(values, 'partner-id'),
      settings: jsonObject(values, 'settings'),
    });
    return { id: partner.id, title: partner.title, settings: partner.settings ?? {} };
  },
  'set-template': async (clients, values) =>
    showTemplate(
      await clients.templates.upsertTemplate({
        resourceId: integer(values, 'resource-id'),
        name: text(values, 'name'),
        version: text(values, 'version'),
        title: optional(values, 'title'),
        slug: optional(values, 'slug'),
        template: await fileText(values, 'html'),
        javascript: await fileText(values, 'js'),
        css: await fileText(values, 'css'),
        settings: jsonObject(values, 'settings'),
        active: values['inactive'] !== true,
        published: values['unpublished'] !== true,
      }),
    ),
  'list-templates': async (clients, values) =>
    (await clients.templates.listTemplates({ resourceId: integer(values, 'resource-id') })).items.map(showTemplate),
  'set-captcha': async (clients, values) => {
    if (values['active'] === true && values['inactive'] === true) throw new UsageError('--active or --inactive, not both');
    const active = values['active'] === true ? true : values['inactive'] === true ? false : undefined;
    const secretKey = values['secret-key-stdin'] === true ? (await readStdin()).trim() : undefined;
    return showCaptcha(
      await clients.captcha.setCaptchaSettings({
        resourceId: integer(values, 'resource-id'),
        active,
        publicKey: optional(values, 'public-key'),
        secretKey,
      }),
    );
  },
  'show-captcha': async (clients, values) =>
    showCaptcha(await clients.captcha.getCaptchaSummary({ resourceId: integer(values, 'resource-id') })),
  'set-event-name': async (clients, values) => {
    const name = await clients.publicEvents.setEventName({
      name: text(values, 'name'),
      private: values['private'] === true,
      description: optional(values, 'description') ?? '',
    });
    return { name: name.name, private: name.private, description: name.description };
  },
  'list-event-names': async (clients) =>
    (await clients.publicEvents.listEventNames({})).items.map((name) => ({
      name: name.name,
      private: name.private,
      description: name.description,
    })),
  'create-webhook-endpoint': async (clients, values) => {
    const created = await clients.webhooks.createWebhookEndpoint({
      resourceId: integer(values, 'resource-id'),
      url: text(values, 'url'),
      eventTypes: list(values, 'event-type'),
      description: optional(values, 'description') ?? '',
    });
    process.stderr.write('The signing secret is shown once; it is stored sealed. Give it to the endpoint owner now.\n');
    return { ...showEndpoint(created.endpoint), secret: created.secret };
  },
  'list-webhook-endpoints': async (clients, values) =>
    (await clients.webhooks.listWebhookEndpoints({ resourceId: integer(values, 'resource-id') })).items.map(showEndpoint),
  'pause-webhook-endpoint': async (clients, values) =>
    showEndpoint(await clients.webhooks.setWebhookEndpointActive({ ...endpointRef(values), active: false })),
  'resume-webhook-endpoint': async (clients, values) =>
    showEndpoint(await clients.webhooks.setWebhookEndpointActive({ ...endpointRef(values), active: true })),
  'list-webhook-deliveries': async (clients, values) =>
    (
      await clients.webhooks.listWebhookDeliveries({
        ...endpointRef(values),
        status: optional(values, 'status') ?? '',
        limit: optional(values, 'limit') === undefined ? 0 : integer(values, 'limit'),
      })
    ).items.map(showDelivery),
  'replay-webhook-deliveries': async (clients, values) =>
    clients.webhooks.replayWebhookDeliveries({
      ...endpointRef(values),
      deliveryIds: list(values, 'delivery-id'),
      status: optional(values, 'status') ?? '',
      since: optional(values, 'since'),
    }),
  'list-webhook-event-types': async (clients) =>
    (await clients.webhooks.listWebhookEventTypes({})).items.map((row) => ({ type: row.type, source_event: row.sourceEvent })),
};

export const PLATFORM_STRING_OPTIONS = [
  'settings',
  'name',
  'version',
  'html',
  'js',
  'css',
  'public-key',
  'url',
  'endpoint-id',
  'status',
  'limit',
  'since',
];
export const PLATFORM_MULTIPLE_OPTIONS = ['event-type', 'delivery-id'];
export const PLATFORM_FLAG_OPTIONS = ['unpublished', 'active', 'secret-key-stdin'];
