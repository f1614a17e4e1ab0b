import { isStorableText } from '@masthead/core/mongo';
import { z } from 'zod';
import type { FieldKey } from './extra-data.repository.js';
import { fieldKeyInvalid, itemListInvalid } from './extra-data.errors.js';

/** The reserved group the custom-fields operations read and write (document 2, section A). */
export const CUSTOM_FIELDS_GROUP = 'custom_fields';

/** Limits of the extra-data row (document 2, Limits): checked after trimming. */
export const MAX_GROUP_KEY_LENGTH = 64;
export const MAX_FIELD_KEY_LENGTH = 128;
/**
 * Items per request: each is written and announced on its own (about 35 ms a new field on
 * FerretDB here), so an unbounded list would outrun the 5 s call deadline. Ours, not the spec's;
 * beyond it the request is incorrect_data (docs/adr/0065).
 */
export const MAX_ITEMS = 50;

export interface FieldWrite extends FieldKey {
  value: string;
}

/** Characters as a reader counts them (code points), so that an emoji is one, not two. */
const lengthOf = (text: string) => [...text].length;

// An item with a NUL, which the database cannot store (docs/adr/0090), is invalid: skipped like the others.
const key = (max: number) =>
  z
    .string()
    .transform((text) => text.trim())
    .refine((text) => text.length > 0 && lengthOf(text) <= max && isStorableText(text));

const value = z
  .string()
  .transform((text) => text.trim())
  .refine(isStorableText);

// Unknown keys of an item are ignored (stripped): clients may send whole rows back.
const groupWrite = z.object({ group_key: key(MAX_GROUP_KEY_LENGTH), field_key: key(MAX_FIELD_KEY_LENGTH), field_value: value });
const groupDelete = z.object({ group_key: key(MAX_GROUP_KEY_LENGTH), field_key: key(MAX_FIELD_KEY_LENGTH) });
const customWrite = z.object({ field_key: key(MAX_FIELD_KEY_LENGTH), field_value: value });

export const incorrectData = (list: string) => itemListInvalid(list, MAX_ITEMS);

/**
 * The valid items of a request list, in order. The list itself must be a nonempty array (else
 * 409 incorrect_data); an item that is not an object, lacks a field, has a non-string field, a
 * key that is empty or too long after trimming, or a NUL character is skipped silently, as the
 * spec says.
 */
function validItems<Item>(raw: unknown, list: string, schema: z.ZodType<Item, z.ZodTypeDef, unknown>): Item[] {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_ITEMS) throw incorrectData(list);
  return raw.flatMap((item) => {
    const parsed = schema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

/** PUT /user/extra/data: `extra_groups` items `{group_key, field_key, field_value}`. */
export const parseGroupWrites = (raw: unknown): FieldWrite[] =>
  validItems(raw, 'extra_groups', groupWrite).map((item) => ({
    groupKey: item.group_key,
    fieldKey: item.field_key,
    value: item.field_value,
  }));

/** DELETE /user/extra/data: `extra_groups` items `{group_key, field_key}`. */
export const parseGroupDeletes = (raw: unknown): FieldKey[] =>
  validItems(raw, 'extra_groups', groupDelete).map((item) => ({ groupKey: item.group_key, fieldKey: item.field_key }));

/** PUT /user/extra/data/custom-fields: `custom_fields` items `{field_key, field_value}`. */
export const parseCustomFieldWrites = (raw: unknown): FieldWrite[] =>
  validItems(raw, 'custom_fields', customWrite).map((item) => ({
    groupKey: CUSTOM_FIELDS_GROUP,
    fieldKey: item.field_key,
    value: item.field_value,
  }));

/** DELETE /user/extra/data/custom-fields/{field_key}: one key, which must be valid. */
export function parseCustomFieldKey(raw: string): FieldKey {
  const parsed = key(MAX_FIELD_KEY_LENGTH).safeParse(raw);
  if (!parsed.success) throw fieldKeyInvalid(MAX_FIELD_KEY_LENGTH);
  return { groupKey: CUSTOM_FIELDS_GROUP, fieldKey: parsed.data };
}
