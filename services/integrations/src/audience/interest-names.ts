/** An interest name as members see it: asterisks removed, lowercased, trimmed (document 2 H). */
export const normalizeInterestName = (name: unknown): string =>
  String(name ?? '')
    .replace(/\*/g, '')
    .toLowerCase()
    .trim();

/** The name of an interest the catalog does not know: `Newsletter` followed by its key (document 2 H). */
export const fallbackInterestName = (id: string): string => `Newsletter ${id}`;
