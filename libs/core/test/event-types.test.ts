import { describe, expect, it } from 'vitest';
import type { DomainEvent, EventPublisher } from '../src/events/index.js';

/**
 * The event catalogue decides each payload's type. The `@ts-expect-error` lines are the test:
 * the package's typecheck (tsconfig.test.json) fails when one of them compiles, i.e. when a
 * publisher could send, or a subscriber read, a payload that does not belong to its name.
 */

export async function publishes(events: EventPublisher): Promise<void> {
  await events.publish({ name: 'resource_updated', resourceId: 1, payload: { public_key: 'pk' } });
  // @ts-expect-error: resource_updated carries public_key, not publicKey
  await events.publish({ name: 'resource_updated', payload: { publicKey: 'pk' } });
  // @ts-expect-error: member_access_changed's session_id is a number
  await events.publish({ name: 'member_access_changed', payload: { user_id: 1, session_id: 'x', reason: 'suspended' } });
  // @ts-expect-error: an event the catalogue does not hold
  await events.publish({ name: 'resource_renamed', payload: {} });
}

export function reads(event: DomainEvent<'service_account_updated'>): number {
  // @ts-expect-error: service_account_updated carries no user_id
  void event.payload.user_id;
  return event.payload.service_account_id;
}

describe('event types', () => {
  it('narrows the payload by the name', () => {
    const event: DomainEvent<'catalog_updated'> = {
      id: 'e1',
      name: 'catalog_updated',
      source: 'catalog',
      occurred_at: new Date(0).toISOString(),
      resource_id: 7,
      payload: {},
    };
    expect(event.payload).toEqual({});
    expect(reads({ ...event, name: 'service_account_updated', payload: { service_account_id: 3, status: 'active', revoked: false } })).toBe(
      3,
    );
  });
});
