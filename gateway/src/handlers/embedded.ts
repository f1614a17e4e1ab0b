import type { z } from 'zod';
import { resourceSettingsWithoutResource } from '../errors/embedded.js';
import { lastQueryValue, rawRequest } from '../http/request.js';
import type { Handler } from '../routes/define.js';
import { serializeCaptchaSettings, serializeEmbeddedSettings, serializeTemplate } from '../serializers/embedded.js';

/** GET /integrations/templates/{name}: `name` (the service applies the path rule) and `v` (trimmed; empty = none). */
export const templateRequest = rawRequest.transform((raw) => ({
  name: raw.params['name'] ?? '',
  version: lastQueryValue(raw, 'v')?.trim() || undefined,
}));

/** GET /integrations/templates/{name} (document 2 K). 404 template_not_found without req_guid. */
export const getTemplate: Handler<'guestWithResource', z.output<typeof templateRequest>> = async (context, input, { templates }) => {
  const template = await templates.getPublishedTemplate(
    { resourceId: context.resource.id, name: input.name, version: input.version },
    { idempotent: true },
  );
  return { body: serializeTemplate(template) };
};

/** GET /integrations/resource-settings (document 2 K): without a resource, 401 and `[]`. */
export const getResourceSettings: Handler<'guest'> = async (context, _input, { resourceSettings }) => {
  if (!context.resource) throw resourceSettingsWithoutResource();
  const settings = await resourceSettings.getEmbeddedSettings({ resourceId: context.resource.id }, { idempotent: true });
  return { body: serializeEmbeddedSettings(settings) };
};

/** GET /integrations/resource/captcha-settings (document 2 K). */
export const getCaptchaSettings: Handler<'guestWithResource'> = async (context, _input, { captcha }) => {
  const settings = await captcha.getCaptchaSettings({ resourceId: context.resource.id }, { idempotent: true });
  return { body: serializeCaptchaSettings(settings) };
};
