import { fieldError } from '@masthead/core/errors';
import type { Resource } from '@masthead/proto/accounts';
import type { Docstore, DocstoreFields, DocstoreValue } from './docstore.js';
import type { IdpLinkRepository } from './idp-link.repository.js';
import { memberIdentity } from './member-identity.js';

/** Limits of ADR 0052: a flat profile document, not a blob store. */
const MAX_FIELDS = 50;
const MAX_TEXT_LENGTH = 1000;
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
/** Written by the service at registration; a member cannot rewrite who the document belongs to. */
const RESERVED = new Set(['user_id', 'email']);

const isScalar = (value: unknown): value is DocstoreValue =>
  value === null || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'string';

/** The update's fields, or a 409 field error naming each bad one. */
export function parseDocstoreFields(raw: Record<string, unknown>): DocstoreFields {
  const problems: Record<string, string> = {};
  const entries = Object.entries(raw);
  if (entries.length === 0) problems['fields'] = 'at least one field is required';
  if (entries.length > MAX_FIELDS) problems['fields'] = `at most ${MAX_FIELDS} fields`;
  const fields: DocstoreFields = {};
  for (const [name, value] of entries.slice(0, MAX_FIELDS)) {
    const label = name.slice(0, 64);
    if (!FIELD_NAME.test(name)) problems[label] = 'letters, digits and _ only, starting with a letter, at most 64';
    else if (RESERVED.has(name)) problems[label] = 'set by the service';
    else if (!isScalar(value)) problems[label] = 'a string, number, boolean or null';
    else if (typeof value === 'string' && value.length > MAX_TEXT_LENGTH) problems[label] = `at most ${MAX_TEXT_LENGTH} characters`;
    else fields[name] = value;
  }
  if (Object.keys(problems).length > 0) throw fieldError(problems);
  return fields;
}

/** PUT /idp/docstore/user (ADR 0052): merges the member's fields into their provider document. */
export class DocstoreUserService {
  constructor(
    private readonly docstore: Docstore,
    private readonly links: IdpLinkRepository,
  ) {}

  async update(resource: Resource, userId: number, raw: Record<string, unknown>): Promise<{ documentId: string; fields: DocstoreFields }> {
    const { settings, uid } = await memberIdentity(this.links, resource, userId);
    const fields = parseDocstoreFields(raw);
    return { documentId: uid, fields: await this.docstore.mergeUser(settings.projectId, uid, fields) };
  }
}
