import type { ExtraDataRow } from '@masthead/proto/identity/extra_data';
import type { ExtraDataRecord } from './extra-data.schema.js';

/** Stored row → the wire row (the gateway writes the JSON field names). */
export const toExtraDataRow = (record: ExtraDataRecord): ExtraDataRow => ({
  id: record._id,
  userId: record.user_id,
  resourceId: record.resource_id,
  groupKey: record.group_key,
  fieldKey: record.field_key,
  fieldValue: record.field_value,
  createdAt: record.created_at.toISOString(),
  updatedAt: record.updated_at.toISOString(),
});
