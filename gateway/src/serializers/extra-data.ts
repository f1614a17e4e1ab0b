import type { ExtraDataRow } from '@masthead/proto/identity/extra_data';

/** The extra-data row (document 2, Resources), field for field. */
export const serializeExtraDataRow = (row: ExtraDataRow): Record<string, unknown> => ({
  id: row.id,
  user_id: row.userId,
  resource_id: row.resourceId,
  group_key: row.groupKey,
  field_key: row.fieldKey,
  field_value: row.fieldValue,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

/**
 * `{<group_key>: [rows]}`, or `[]` when there are none: an array, not an empty object, because
 * the API says so (document 2, section A). Built from entries so that a group named
 * `__proto__` is an ordinary key.
 */
export function groupExtraDataRows(rows: ExtraDataRow[]): Record<string, unknown> | unknown[] {
  if (rows.length === 0) return [];
  const groups = new Map<string, Record<string, unknown>[]>();
  for (const row of rows) groups.set(row.groupKey, [...(groups.get(row.groupKey) ?? []), serializeExtraDataRow(row)]);
  return Object.fromEntries(groups);
}
