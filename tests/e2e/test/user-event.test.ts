import { randomBytes } from 'node:crypto';
import type { DomainEvent } from '@masthead/core/events';
import { createMember, createTenant, type StackOptions } from '@masthead/testkit';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCli, integrationsOperator, streamedEvents } from './integrations-platform-support.js';
import { privateNats } from './nats-support.js';
import { anyIsoDate, anyRequestId, collectEvents, eventually, grpcCallCounter, useStack } from './support.js';

/** Counts the gateway's outgoing gRPC calls (DESIGN.md "Hot paths"). */
const { calls, counter } = grpcCallCounter();

/** Document 2 L: POST /user/event through the gateway, the event read back from the stream. */
describe('POST /user/event', () => {
  // A NATS of this file's own: one test stops and restarts it.
  let nats: Awaited<ReturnType<typeof privateNats>>;
  let client: NatsConnection;
  const options: Partial<StackOptions> = { gatewayInterceptors: [counter] };
  beforeAll(async () => {
    nats = await privateNats();
    options.natsUrl = nats.url;
  });
  const s = useStack(options);
  let events: Array<Record<string, unknown>>;
  beforeAll(async () => {
    client = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    events = collectEvents(client, 'user_event');
  });
  afterAll(async () => {
    await client?.close();
    await nats?.stop();
  });
  let operator: ReturnType<typeof integrationsOperator>;
  const ops = () => (operator ??= integrationsOperator(s));
  afterAll(() => operator?.close());

  const post = (publicKey: string | undefined, json: unknown, headers: Record<string, string> = {}) =>
    s.api('/user/event', { headers: { ...(publicKey ? { resource: publicKey } : {}), ...headers }, json });
  const unique = () => randomBytes(6).toString('hex');
  /** The streamed event whose value is `value` (values are unique per test). */
  const eventWithValue = (value: string) =>
    eventually(
      async () =>
        events.find((event) => (event['payload'] as Record<string, unknown>)['value'] === value) as DomainEvent<'user_event'> | undefined,
    );

  it('accepts a guest page view and streams it with who and where; body selectors are ignored', async () => {
    const tenant = await createTenant(s.stack);
    const page = `/Articles/<b>Big</b>-News-${unique()}`;
    const response = await post(
      tenant.publicKey,
      { name: 'page_view', value: page, content_key: '  article-42 ', user_id: 999, resource_id: 12345, session_id: 7 },
      {
        'user-agent': 'EventTest/1.0',
        referer: 'https://news.example.test/home?x=1',
        'accept-language': 'de-CH,de;q=0.9,en;q=0.8',
        session: 'guest-session-1',
      },
    );
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ result: true });
    const value = page.replace(/<\/?b>/g, '').toLowerCase();
    const event = await eventWithValue(value);
    expect(event).toEqual({
      id: expect.any(String),
      name: 'user_event',
      source: 'integrations',
      occurred_at: anyIsoDate,
      resource_id: tenant.resourceId,
      payload: {
        name: 'page_view',
        value,
        data: {},
        content_key: 'article-42',
        custom_recipient_email: null,
        user_id: null,
        session_id: null,
        guest_session: 'guest-session-1',
        ip: '127.0.0.1',
        user_agent: 'EventTest/1.0',
        referrer: 'https://news.example.test/home?x=1',
        host: new URL(s.stack.gatewayUrl).host,
        language: 'de-ch',
        language_id: null,
      },
    });
  });

  it("a member's event carries the member and the session; a repeat is another event", async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const signIn = await s.api('/authorization', {
      headers: { resource: tenant.publicKey },
      json: { email: member.email, password: member.password },
    });
    const value = `/member-${unique()}`;
    for (let i = 0; i < 2; i++) {
      const response = await post(tenant.publicKey, { name: 'page_view', value }, { token: signIn.body['token'] as string });
      expect(response.body).toEqual({ result: true });
    }
    await eventually(async () =>
      events.filter((event) => (event['payload'] as Record<string, unknown>)['value'] === value).length === 2 ? true : undefined,
    );
    const [first, second] = events.filter((event) => (event['payload'] as Record<string, unknown>)['value'] === value);
    expect(first!['payload']).toMatchObject({ user_id: member.id, session_id: signIn.body['session_id'], guest_session: null });
    expect(first!['id']).not.toBe(second!['id']);
  });

  it('strips tags and lowercases name and value, keeps data, filters the recipient email', async () => {
    const tenant = await createTenant(s.stack);
    const marker = unique();
    const response = await post(tenant.publicKey, {
      name: ' <i>PAGE_VIEW</i> ',
      value: `<script>alert(1)</script>Home ${marker.toUpperCase()}`,
      data: { section: 'Sport', nested: { list: [1, 'Two', null] } },
      custom_recipient_email: ' Jo hn(at)<Doe>@Example.COM ',
      content_key: '   ',
    });
    expect(response.body).toEqual({ result: true });
    const event = await eventWithValue(`alert(1)home ${marker}`);
    expect(event.payload).toMatchObject({
      name: 'page_view',
      data: { section: 'Sport', nested: { list: [1, 'Two', null] } },
      custom_recipient_email: 'johnatdoe@example.com',
      content_key: null,
    });
  });

  it('answers 409 invalid_event_name for a missing, unknown or private name; operators change the list at once', async () => {
    const tenant = await createTenant(s.stack);
    const custom = `signup_click_${unique()}`;
    for (const name of [undefined, '', 42, 'unknown_event', '<b></b>', custom]) {
      const response = await post(tenant.publicKey, { name, value: 'x' });
      expect({ name, status: response.status, body: response.body }).toEqual({
        name,
        status: 409,
        body: { error: 'invalid_event_name', error_description: 'Invalid event name', req_guid: anyRequestId },
      });
    }
    // The name is checked before the value.
    expect((await post(tenant.publicKey, { name: 'nope' })).body).toMatchObject({ error: 'invalid_event_name' });

    await adminCli(s, ['set-event-name', '--name', custom, '--description', 'A click on sign-up']);
    await eventually(async () => ((await post(tenant.publicKey, { name: custom, value: 'x' })).status === 200 ? true : undefined), 5000);
    expect((await post(tenant.publicKey, { name: custom, value: 'x' })).body).toEqual({ result: true });
    // The gateways check names too (ADR 0215): the change reaches them with its announcement.
    await ops().publicEvents.setEventName({ name: custom, private: true, description: '' });
    await eventually(async () => ((await post(tenant.publicKey, { name: custom, value: 'x' })).status === 409 ? true : undefined), 5000);
    const listed = JSON.parse((await adminCli(s, ['list-event-names'])).stdout) as Array<Record<string, unknown>>;
    expect(listed).toContainEqual({ name: 'page_view', private: false, description: expect.any(String) });
    expect(listed).toContainEqual({ name: custom, private: true, description: '' });
  });

  it('answers 409 invalid_event_value for a missing, empty, tag-only, non-text or too long value', async () => {
    const tenant = await createTenant(s.stack);
    for (const value of [undefined, '', '   ', '<p></p>', 5, ['a'], 'x'.repeat(2049)]) {
      const response = await post(tenant.publicKey, { name: 'page_view', value });
      expect({ status: response.status, body: response.body }).toEqual({
        status: 409,
        body: { error: 'invalid_event_value', error_description: 'Invalid event value', req_guid: anyRequestId },
      });
    }
    expect((await post(tenant.publicKey, { name: 'page_view', value: 'x'.repeat(2048) })).body).toEqual({ result: true });
  });

  it('answers 409 with error_fields for data that is not an object or too large', async () => {
    const tenant = await createTenant(s.stack);
    for (const data of [[1, 2], 'text', 3]) {
      const response = await post(tenant.publicKey, { name: 'page_view', value: 'x', data });
      expect(response.status).toBe(409);
      expect(response.body).toEqual({ error: true, error_fields: { data: 'data must be an object' }, req_guid: anyRequestId });
    }
    const big = await post(tenant.publicKey, { name: 'page_view', value: 'x', data: { blob: 'x'.repeat(17_000) } });
    expect(big.body).toEqual({ error: true, error_fields: { data: 'data must be at most 16384 bytes as JSON' }, req_guid: anyRequestId });
    // null is no data: the default {}.
    expect((await post(tenant.publicKey, { name: 'page_view', value: 'x', data: null })).body).toEqual({ result: true });
  });

  it('answers 404 resource_not_exists without a resource or with an unknown one', async () => {
    for (const key of [undefined, `nope-${unique()}`]) {
      const response = await post(key, { name: 'page_view', value: 'x' });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'resource_not_exists', error_description: 'Resource does not exist', req_guid: anyRequestId });
    }
  });

  it('costs a guest no blocking gRPC call and a member one, after warm-up: the gateway hands the event to the stream', async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const token = (
      await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: { email: member.email, password: member.password } })
    ).body['token'] as string;
    const count = async (headers: Record<string, string>) => {
      await post(tenant.publicKey, { name: 'page_view', value: '/warm' }, headers);
      calls.length = 0;
      expect((await post(tenant.publicKey, { name: 'page_view', value: '/counted' }, headers)).status).toBe(200);
      return [...calls];
    };
    expect(await count({})).toEqual([]);
    expect(await count({ token })).toEqual(['/masthead.identity.v1.IdentityService/Authenticate']);
  });

  it('stores an event once when integrations takes it under the ID the gateway already streamed it with', async () => {
    const tenant = await createTenant(s.stack);
    const value = `/handed-over-${unique()}`;
    expect((await post(tenant.publicKey, { name: 'page_view', value })).status).toBe(200);
    const streamed = await eventWithValue(value);
    // The gateway's fallback after an acknowledgement that did not come in time (ADR 0215).
    const { eventId } = await ops().publicEvents.submitEvent({
      resourceId: tenant.resourceId,
      name: 'page_view',
      value,
      dataJson: '{}',
      userId: 0,
      sessionId: 0,
      guestSession: '',
      ip: '127.0.0.1',
      userAgent: '',
      referrer: '',
      host: '',
      language: '',
      eventId: streamed.id,
      occurredAt: streamed.occurred_at,
    });
    expect(eventId).toBe(streamed.id);
    const stored = (await streamedEvents(client, 'user_event')).filter((event) => (event.payload as { value: string }).value === value);
    expect(stored.map((event) => event.id)).toEqual([streamed.id]);
  });

  it('never loses an accepted event: one sent while the stream is down arrives once it is back', async () => {
    const tenant = await createTenant(s.stack);
    const value = `/during-outage-${unique()}`;
    await nats.stopNow();
    try {
      const response = await post(tenant.publicKey, { name: 'page_view', value });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ result: true });
      // Kept in integrations' outbox meanwhile.
      expect(
        await s.db('integrations').collection('outbox').countDocuments({ subject: 'masthead.events.user_event' }),
      ).toBeGreaterThanOrEqual(1);
    } finally {
      await nats.restart();
    }
    const streamed = await eventually(async () => {
      // JetStream answers nothing for a moment after its restart.
      const all = await streamedEvents(client, 'user_event').catch(() => []);
      const found = all.filter((event) => (event.payload as { value: string }).value === value);
      return found.length > 0 ? found : undefined;
    }, 30_000);
    expect(streamed).toHaveLength(1);
    expect(streamed[0]).toMatchObject({ resource_id: tenant.resourceId, payload: { name: 'page_view', value } });
  });
});
