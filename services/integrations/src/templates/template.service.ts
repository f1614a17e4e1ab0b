import { invalidTemplateKey, templateNotFound } from './template.errors.js';
import type { TemplateFields, TemplateRepository } from './template.repository.js';
import type { TemplateRecord } from './template.schema.js';

/** Document 2 K: "one or more digit, word, hyphen or underscore characters". */
const TEMPLATE_KEY = /^[\w-]+$/;

export interface UpsertTemplateCommand extends TemplateFields {
  resourceId: number;
  name: string;
  version: string;
}

interface Deps {
  templates: TemplateRepository;
}

/** Published templates for embeds (see CONTEXT.md). */
export class TemplateService {
  constructor(private readonly deps: Deps) {}

  /**
   * The published template of `name` a reader gets: with `version`, that version (active or not)
   * if published, else the newest active published one. 404 template_not_found when none.
   */
  async published(resourceId: number, rawName: string, rawVersion: string | undefined): Promise<TemplateRecord> {
    const name = rawName.trim();
    if (!TEMPLATE_KEY.test(name)) throw templateNotFound();
    const version = rawVersion?.trim() || null;
    const candidates = (await this.deps.templates.versionsOf(resourceId, name)).filter((template) => template.published);
    const chosen =
      (version !== null ? candidates.find((template) => template.version === version) : undefined) ??
      candidates.find((template) => template.active);
    if (!chosen) throw templateNotFound();
    return chosen;
  }

  async upsert(command: UpsertTemplateCommand): Promise<TemplateRecord> {
    const { resourceId, name: rawName, version: rawVersion, ...fields } = command;
    const name = rawName.trim();
    const version = rawVersion.trim();
    if (!TEMPLATE_KEY.test(name)) throw invalidTemplateKey('name');
    if (!TEMPLATE_KEY.test(version)) throw invalidTemplateKey('version');
    return this.deps.templates.upsert(resourceId, name, version, fields);
  }

  list(resourceId: number): Promise<TemplateRecord[]> {
    return this.deps.templates.listOfResource(resourceId);
  }
}
