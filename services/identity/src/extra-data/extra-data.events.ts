import type { EventPublisher } from '@masthead/core/events';
import type { ExtraDataRecord } from './extra-data.schema.js';

/** Event names of extra-data writes (docs/adr/0065); one event per field written or deleted. */
export const EXTRA_DATA_UPDATED = 'user_extra_data_updated';
export const EXTRA_DATA_DELETED = 'user_extra_data_deleted';

const fieldOf = (record: ExtraDataRecord) => ({
  extra_data_id: record._id,
  user_id: record.user_id,
  group_key: record.group_key,
  field_key: record.field_key,
});

/** Announces one field write; the value travels so that consumers need not read it back. */
export const publishFieldUpdated = (events: EventPublisher, record: ExtraDataRecord, created: boolean) =>
  events.publish({
    name: EXTRA_DATA_UPDATED,
    resourceId: record.resource_id,
    payload: { ...fieldOf(record), field_value: record.field_value, created },
  });

export const publishFieldDeleted = (events: EventPublisher, record: ExtraDataRecord) =>
  events.publish({ name: EXTRA_DATA_DELETED, resourceId: record.resource_id, payload: fieldOf(record) });
