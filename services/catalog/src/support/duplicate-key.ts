/**
 * A unique-index violation. MongoDB and FerretDB both use code 11000, but FerretDB 1.24 names
 * neither the index nor the key ("E11000 duplicate key error collection: db.coll", measured), so
 * a caller that must know which key clashed re-reads by that key instead of parsing the error.
 */
export function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}
