/** A scalar a docstore field may hold (ADR 0052 keeps documents flat). */
export type DocstoreValue = string | number | boolean | null;
export type DocstoreFields = Record<string, DocstoreValue>;

/**
 * The provider's document store, as PUT /idp/docstore/user and the exchange's registration
 * path use it: one document per member under `users/<provider UID>` of the provider project.
 * Both implementations pass one contract test (identity test/docstore-contract.test.ts).
 */
export interface Docstore {
  /** Merges `fields` into the document (created when missing) and returns the whole stored document. */
  mergeUser(projectId: string, documentId: string, fields: DocstoreFields): Promise<DocstoreFields>;
  /** The stored document, or null when there is none. */
  getUser(projectId: string, documentId: string): Promise<DocstoreFields | null>;
}
