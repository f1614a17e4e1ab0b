import ISO6391 from 'iso-639-1';

/**
 * The language reference data: `iso-639-1` (MIT), the ISO 639-1 codes with English and native
 * names. A language's ID is derived from its two-letter code (aa = 1 … zz = 676), so restarts
 * and package upgrades never renumber.
 */
export interface SourceLanguage {
  id: number;
  slug: string;
  title: string;
  description: string | null;
}

export function languageIdOf(code: string): number {
  const [first, second] = [code.charCodeAt(0) - 97, code.charCodeAt(1) - 97];
  if (code.length !== 2 || first < 0 || first > 25 || second < 0 || second > 25) throw new Error(`not an ISO 639-1 code: ${code}`);
  return first * 26 + second + 1;
}

/**
 * What a fresh deployment offers: the default language and a set of widely published languages
 * are active; every other ISO 639-1 language is listed inactive for operators to switch on.
 */
export const DEFAULT_LANGUAGE = 'en';
export const ACTIVE_LANGUAGES: readonly string[] = [
  'en',
  'de',
  'fr',
  'es',
  'it',
  'pt',
  'nl',
  'sv',
  'da',
  'nb',
  'fi',
  'pl',
  'cs',
  'ru',
  'uk',
  'tr',
  'ar',
  'he',
  'hi',
  'zh',
  'ja',
  'ko',
];
/** Initial `sort`: higher first when a client orders by it. */
export const initialSort = (slug: string): number => (slug === DEFAULT_LANGUAGE ? 100 : ACTIVE_LANGUAGES.includes(slug) ? 50 : 0);

export function loadLanguageSource(): SourceLanguage[] {
  return ISO6391.getLanguages(ISO6391.getAllCodes()).map((language) => ({
    id: languageIdOf(language.code),
    slug: language.code,
    title: language.name,
    // The language's own name for itself ("Deutsch"), what a language picker shows beside the title.
    description: language.nativeName || null,
  }));
}
