import type { CaptchaSettings } from '@masthead/proto/integrations/captcha';
import type { EmbeddedSettings } from '@masthead/proto/integrations/resource_settings';
import type { Template } from '@masthead/proto/integrations/templates';

/** Document 2 K: the template's HTML, script and styles travel base64-encoded (not executed by the read). */
const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** GET /integrations/templates/{name}. */
export const serializeTemplate = (template: Template) => ({
  name: template.name,
  title: template.title ?? null,
  slug: template.slug ?? null,
  template: base64(template.template),
  javascript: base64(template.javascript),
  css: base64(template.css),
  settings: template.settings ?? {},
});

/** GET /integrations/resource-settings: the settings map at top level, with `logo`. */
export const serializeEmbeddedSettings = (settings: EmbeddedSettings) => ({ ...settings.settings, logo: settings.logo ?? null });

/** GET /integrations/resource/captcha-settings: never a secret (the service holds none on this path). */
export const serializeCaptchaSettings = (settings: CaptchaSettings) => ({
  active: settings.active,
  captcha_public_key: settings.publicKey ?? null,
});
