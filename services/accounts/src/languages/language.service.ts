import { TtlCache } from '@masthead/core/cache';
import { languageNotFound } from '@masthead/core/errors';
import { toPaginator, type PageRequest, type Paginator } from '@masthead/core/pagination';
import type { LanguageRepository } from './language.repository.js';
import type { LanguageRecord } from './language.schema.js';

type LanguageList = { items: LanguageRecord[]; paginator: Paginator };

/** Pages kept at once: the distinct requests clients make are few; odd ones only evict each other. */
const MAX_CACHED_PAGES = 256;

export interface LanguageDeps {
  languages: LanguageRepository;
  /** How long a page is kept in memory (LOCALIZATION_CACHE_TTL_MS; 0 = not at all). */
  cacheTtlMs: number;
}

export class LanguageService {
  /**
   * Pages by request. Languages are seeded at boot and never written after, and FerretDB sorts
   * and counts the whole table for every page (a sort it does not push down to PostgreSQL).
   */
  private readonly pages: TtlCache<string, LanguageList>;

  constructor(private readonly deps: LanguageDeps) {
    this.pages = new TtlCache(deps.cacheTtlMs, MAX_CACHED_PAGES);
  }

  /** Every language, inactive and non-default included (document 2, B). */
  list(request: PageRequest): Promise<LanguageList> {
    return this.pages.getOrLoad(JSON.stringify(request), async () => {
      const page = await this.deps.languages.list(request);
      return { items: page.rows, paginator: toPaginator(request, page.total) };
    });
  }

  /** Thrown by GET /languages/{id} for an unknown ID. */
  async get(id: number): Promise<LanguageRecord> {
    const language = id > 0 ? await this.deps.languages.findById(id) : null;
    if (!language) throw languageNotFound();
    return language;
  }
}
