import { isServiceError } from '@masthead/core/errors';
import type { ServiceClient } from '@masthead/core/grpc';
import { SortDirection } from '@masthead/proto/common';
import type { LocalizationServiceService } from '@masthead/proto/accounts/localization';

/**
 * Languages are reference data of the accounts service (ADR 0032): identity asks it whether an
 * ID or a slug exists instead of keeping a copy.
 */
export class LanguageLookup {
  constructor(private readonly localization: ServiceClient<typeof LocalizationServiceService>) {}

  /** True when a language has this ID (inactive ones included: ADR 0032 lets a user keep any). */
  async exists(id: number): Promise<boolean> {
    try {
      await this.localization.getLanguage({ id }, { idempotent: true });
      return true;
    } catch (error) {
      if (isServiceError(error) && error.status === 404) return false;
      throw error;
    }
  }

  /** The ID of the language with exactly this slug, or null. */
  async idOfSlug(slug: string): Promise<number | null> {
    // The list filter matches text by substring; the exact slug is picked from its answer.
    const page = await this.localization.listLanguages(
      { query: { page: 1, limit: 50, filterJson: JSON.stringify({ slug }), orderBy: '', sort: SortDirection.SORT_DIRECTION_ASC } },
      { idempotent: true },
    );
    return page.items.find((language) => language.slug === slug)?.id ?? null;
  }
}
