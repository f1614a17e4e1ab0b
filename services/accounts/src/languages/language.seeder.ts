import type { Logger } from '@masthead/core/logging';
import type { LanguageRepository } from './language.repository.js';
import type { LanguageRecord } from './language.schema.js';
import { ACTIVE_LANGUAGES, DEFAULT_LANGUAGE, initialSort, loadLanguageSource, type SourceLanguage } from './language.source.js';

/**
 * Loads the packaged languages at boot, idempotently: new languages are inserted with their
 * initial flags; for existing ones only the package's names are refreshed when they changed, so
 * an operator's `active`, `is_default` and `sort` survive restarts. Languages the package drops
 * stay (a user may have chosen one).
 */
export async function seedLanguages(
  repository: LanguageRepository,
  logger: Logger,
  source: readonly SourceLanguage[] = loadLanguageSource(),
): Promise<{ inserted: number; updated: number }> {
  const stored = new Map((await repository.all()).map((language) => [language._id, language]));
  const now = new Date();
  const inserts: LanguageRecord[] = [];
  let updated = 0;
  for (const language of source) {
    const existing = stored.get(language.id);
    if (!existing) {
      inserts.push({
        _id: language.id,
        slug: language.slug,
        title: language.title,
        description: language.description,
        is_default: language.slug === DEFAULT_LANGUAGE,
        active: ACTIVE_LANGUAGES.includes(language.slug),
        sort: initialSort(language.slug),
        created_at: now,
        updated_at: now,
      });
    } else if (existing.slug !== language.slug || existing.title !== language.title || existing.description !== language.description) {
      await repository.updatePackageFields(
        { _id: language.id, slug: language.slug, title: language.title, description: language.description },
        now,
      );
      updated++;
    }
  }
  await repository.insertMany(inserts);
  if (inserts.length + updated > 0) logger.info({ inserted: inserts.length, updated }, 'language reference data seeded');
  return { inserted: inserts.length, updated };
}
