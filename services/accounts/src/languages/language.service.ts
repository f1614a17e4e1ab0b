import { languageNotFound } from '@masthead/core/errors';
import { toPaginator, type PageRequest, type Paginator } from '@masthead/core/pagination';
import type { LanguageRepository } from './language.repository.js';
import type { LanguageRecord } from './language.schema.js';

/** Thrown by GET /languages/{id} for an unknown ID. */
export class LanguageService {
  constructor(private readonly languages: LanguageRepository) {}

  /** Every language, inactive and non-default included (document 2, B). */
  async list(request: PageRequest): Promise<{ items: LanguageRecord[]; paginator: Paginator }> {
    const page = await this.languages.list(request);
    return { items: page.rows, paginator: toPaginator(request, page.total) };
  }

  async get(id: number): Promise<LanguageRecord> {
    const language = id > 0 ? await this.languages.findById(id) : null;
    if (!language) throw languageNotFound();
    return language;
  }
}
