import type { EventPublisher, EventWitness } from '@masthead/core/events';
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

/**
 * Prepares the announcement of one field write, witnessed by its row (docs/adr/0180); the value
 * travels so that consumers need not read it back.
 */
export const prepareFieldUpdated = (events: EventPublisher, record: ExtraDataRecord, created: boolean, witness: EventWitness) =>
  events.prepare(
    {
      name: EXTRA_DATA_UPDATED,
      resourceId: record.resource_id,
      payload: { ...fieldOf(record), field_value: record.field_value, created },
    },
    witness,
  );

export const publishFieldDeleted = (events: EventPublisher, record: ExtraDataRecord) =>
  events.publish({ name: EXTRA_DATA_DELETED, resourceId: record.resource_id, payload: fieldOf(record) });
