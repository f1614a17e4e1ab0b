import { expect } from 'vitest';
import {
  anyIsoDate,
  anyRequestId,
  anySessionCredentials,
  blankUserProjection,
  collectEvents,
  eventually,
  type StackHandle,
} from './support.js';
import type { ApiResponse } from '@masthead/testkit';

/**
 * Mail events of one name (docs/adr/0056). NATS is shared by every test file's stack, so a
 * mail is found by its address, which each test makes unique.
 */
export function mailbox(handle: StackHandle, name: string) {
  const events = collectEvents(handle.nats, name);
  const to = (email: string) => events.filter((event) => (event['payload'] as { email: string }).email === email);
  return {
    /** Resolves once the server has the subscription, so no mail sent afterwards is missed. */
    ready: () => handle.nats.flush(),
    /** The newest mail to `email`, waiting for the `count`-th one to arrive. */
    received: (email: string, count = 1) => eventually(async () => (to(email).length >= count ? to(email).at(-1) : undefined)),
    /** The code of the newest mail to `email`. */
    code: async (email: string, count = 1) => {
      const event = await eventually(async () => (to(email).length >= count ? to(email).at(-1) : undefined));
      return (event['payload'] as { code: string }).code;
    },
    sentTo: (email: string) => to(email).length,
  };
}

/** A whole mail event: the envelope and a payload with the code and nothing else secret. */
export const mailEvent = (name: string, resourceId: number, userId: number, email: string) => ({
  id: expect.any(String),
  name,
  source: 'identity',
  occurred_at: anyIsoDate,
  resource_id: resourceId,
  payload: { user_id: userId, email, code: expect.stringMatching(/^[A-Za-z0-9_-]{48}$/), expires_at: anyIsoDate },
});

/** The session result (document 1, Resources) of a member without profile fields. */
export const sessionResult = (id: number, email: string, emailConfirmed: boolean) => ({
  ...blankUserProjection(id, email, { email_confirmed: emailConfirmed }),
  ...anySessionCredentials(),
  subscriptions: [],
  teams: [],
});

/** Arranges expiry through the database (never a sleep): the matching codes expired a second ago. */
export async function expireCodes(handle: StackHandle, filter: Record<string, unknown>): Promise<void> {
  await handle
    .db('identity')
    .collection('member_codes')
    .updateMany(filter, { $set: { expires_at: new Date(Date.now() - 1000) } });
}

export function expectError(response: ApiResponse<Record<string, unknown>>, status: number, error: string): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status,
    body: { error, error_description: expect.any(String), req_guid: anyRequestId },
  });
}
