/**
 * The request normalisations of document 2 L, after the PHP functions the original used. Kept
 * apart so that their quirks are tested once.
 */

/**
 * As PHP's strip_tags: removes everything from a `<` to the next `>` (or to the end when no `>`
 * follows), comments and tags alike.
 */
export const stripTags = (text: string): string => text.replace(/<!--[\s\S]*?(-->|$)/g, '').replace(/<[^>]*(>|$)/g, '');

/** Name and value: tags stripped, trimmed, lowercased. */
export const normaliseText = (text: string): string => stripTags(text).trim().toLowerCase();

/**
 * As PHP's FILTER_SANITIZE_EMAIL, then trimmed and lowercased: keeps letters, digits and
 * !#$%&'*+-=?^_`{|}~@.[] and drops everything else. No validity check (document 2 L).
 */
export const sanitiseEmail = (text: string): string => text.replace(/[^A-Za-z0-9!#$%&'*+\-=?^_`{|}~@.[\]]/g, '').toLowerCase();
