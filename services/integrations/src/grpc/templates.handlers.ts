import type { AsyncImplementation } from '@masthead/core/grpc';
import type { TemplatesServiceService } from '@masthead/proto/integrations/templates';
import type { TemplateService } from '../templates/template.service.js';
import { toTemplate } from './platform.wire.js';

export function templatesHandlers(templates: TemplateService): AsyncImplementation<typeof TemplatesServiceService> {
  return {
    getPublishedTemplate: async ({ resourceId, name, version }) => toTemplate(await templates.published(resourceId, name, version)),
    upsertTemplate: async (request) =>
      toTemplate(
        await templates.upsert({
          resourceId: request.resourceId,
          name: request.name,
          version: request.version,
          title: request.title ?? null,
          slug: request.slug ?? null,
          template: request.template,
          javascript: request.javascript,
          css: request.css,
          settings: request.settings ?? {},
          active: request.active,
          published: request.published,
        }),
      ),
    listTemplates: async ({ resourceId }) => ({ items: (await templates.list(resourceId)).map(toTemplate) }),
  };
}
