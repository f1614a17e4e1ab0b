import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { startWebhookReceiver, verifyWebhook, type ReceivedWebhook, type WebhookReceiver } from '@masthead/service-testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { billingKit } from './billing-support.js';
import { cardProviderTenant } from './card-provider-support.js';
import { catalogKit, type Json } from './catalog-support.js';
import { adminCli } from './integrations-platform-support.js';
import { anyIsoDate, eventually, useStack } from './support.js';
import { ticketingKit } from './ti-events-support.js';

interface CreatedEndpoint {
  id: number;
  resource_id: number;
  url: string;
  event_types: string[];
  active: boolean;
  secret: string;
}

/**
 * Signed outbound webhooks end to end: domain events of requests through the gateway reach the
 * publisher's endpoint (configured with the admin CLI), signed after Standard Webhooks.
 */
describe('signed outbound webhooks', () => {
  const s = useStack();
  const kit = catalogKit(s);
  const { buyer, pay } = billingKit(s);
  const ticketing = ticketingKit(s);
  const receivers: WebhookReceiver[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  const receiver = async (answer?: Parameters<typeof startWebhookReceiver>[0]) => {
    const started = await startWebhookReceiver(answer);
    receivers.push(started);
    return started;
  };
  const subscribe = async (tenant: Tenant, url: string, ...types: string[]): Promise<CreatedEndpoint> => {
    const args = [
      'create-webhook-endpoint',
      '--resource-id',
      String(tenant.resourceId),
      '--url',
      url,
      ...types.flatMap((type) => ['--event-type', type]),
    ];
    const { stdout, stderr } = await adminCli(s, args);
    expect(stderr).toContain('shown once');
    return JSON.parse(stdout) as CreatedEndpoint;
  };
  const ofType = (target: WebhookReceiver, secret: string, type: string) =>
    target.received.filter((request) => verifyWebhook(secret, request).type === type);
  const received = (target: WebhookReceiver, secret: string, type: string, count = 1) =>
    eventually(async () => {
      const found = ofType(target, secret, type);
      return found.length >= count ? found : undefined;
    }, 20_000);

  it('a sign-in reaches the endpoint signed, and answers without waiting for it', async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const endpoint = await receiver(() => ({ hold: held }));
    const created = await subscribe(tenant, endpoint.url, 'member.logged_in');
    expect(created).toEqual({
      id: expect.any(Number),
      resource_id: tenant.resourceId,
      url: endpoint.url,
      event_types: ['member.logged_in'],
      active: true,
      description: '',
      secret_key_id: 'dev',
      created_at: anyIsoDate,
      secret: expect.stringMatching(/^whsec_/),
    });

    const signIn = await s.api('/authorization', {
      headers: { resource: tenant.publicKey },
      json: { email: member.email, password: member.password },
    });
    // Answered while the endpoint holds the webhook unanswered.
    expect(signIn.status).toBe(200);
    const [request] = await received(endpoint, created.secret, 'member.logged_in');
    release();
    expect(request!.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verifyWebhook(created.secret, request!)).toEqual({
      type: 'member.logged_in',
      timestamp: anyIsoDate,
      data: { resource_id: tenant.resourceId, user_id: member.id, session_id: signIn.body['session_id'], source_type: null },
    });
  });

  it("sends each endpoint its own resource's events of the types it chose", async () => {
    const [mine, theirs] = [await createTenant(s.stack), await createTenant(s.stack)];
    const [myEndpoint, theirEndpoint] = [await receiver(), await receiver()];
    const mineCreated = await subscribe(mine, myEndpoint.url, 'membership.created');
    const theirsCreated = await subscribe(theirs, theirEndpoint.url);

    const theirMember = await createMember(s.stack, theirs);
    await kit.signIn(theirs, theirMember);
    const myMember = await createMember(s.stack, mine);
    await kit.signIn(mine, myMember);
    const plan = await kit.plan(mine, 'digital');
    const pricing = await kit.pricing(plan.id, 'Monthly');
    const membershipId = await kit.grant(mine, myMember.id, pricing.id);

    const [membership] = await received(myEndpoint, mineCreated.secret, 'membership.created');
    expect(verifyWebhook(mineCreated.secret, membership!).data).toEqual({
      resource_id: mine.resourceId,
      membership_id: membershipId,
      user_id: myMember.id,
      subscription_id: pricing.id,
      plan_id: plan.id,
      source: expect.any(String),
    });
    await received(theirEndpoint, theirsCreated.secret, 'member.logged_in');
    // My endpoint chose memberships only; theirs saw only their own resource.
    expect(myEndpoint.received.map((request) => verifyWebhook(mineCreated.secret, request).type)).toEqual(['membership.created']);
    for (const request of theirEndpoint.received)
      expect(verifyWebhook(theirsCreated.secret, request).data['resource_id']).toBe(theirs.resourceId);
    expect(
      theirEndpoint.received.some(
        (request: ReceivedWebhook) => verifyWebhook(theirsCreated.secret, request).data['user_id'] === myMember.id,
      ),
    ).toBe(false);
  });

  it('keeps a delivery log per endpoint that operators read and replay with the admin CLI', async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const endpoint = await receiver((_request, index) => ({ status: index === 0 ? 500 : 200 }));
    const created = await subscribe(tenant, endpoint.url, 'member.logged_in');
    await kit.signIn(tenant, member);
    await received(endpoint, created.secret, 'member.logged_in');
    const ref = ['--resource-id', String(tenant.resourceId), '--endpoint-id', String(created.id)];
    const [entry] = JSON.parse((await adminCli(s, ['list-webhook-deliveries', ...ref])).stdout) as Array<Record<string, unknown>>;
    // The first answer was a 500: pending, its next attempt 30 s later.
    expect(entry).toEqual({
      id: expect.stringMatching(new RegExp(`^${created.id}:`)),
      webhook_id: endpoint.received[0]!.headers['webhook-id'],
      type: 'member.logged_in',
      status: 'pending',
      attempts: 1,
      next_attempt_at: anyIsoDate,
      retry_until: anyIsoDate,
      created_at: anyIsoDate,
      delivered_at: null,
      last_status_code: 500,
      last_error: 'HTTP 500',
      attempt_log: [
        { attempt: 1, outcome: 'failed', started_at: anyIsoDate, finished_at: anyIsoDate, status_code: 500, error: 'HTTP 500' },
      ],
    });
    // Pending ones are not replayed (they are in line already); `--status all` names them too.
    expect(JSON.parse((await adminCli(s, ['replay-webhook-deliveries', ...ref, '--status', 'all'])).stdout)).toEqual({ replayed: 0 });

    // Pausing fails it at its next attempt; after resuming, a replay sends it with the same webhook-id.
    await adminCli(s, ['pause-webhook-endpoint', ...ref]);
    await s
      .db('integrations')
      .collection('webhook_deliveries')
      .updateOne({ _id: entry!['id'] as never }, { $set: { next_attempt_at: new Date() } });
    await eventually(async () => {
      const [now] = JSON.parse((await adminCli(s, ['list-webhook-deliveries', ...ref])).stdout) as Array<Record<string, unknown>>;
      return now!['status'] === 'failed' ? now : undefined;
    });
    await adminCli(s, ['resume-webhook-endpoint', ...ref]);
    expect(JSON.parse((await adminCli(s, ['replay-webhook-deliveries', ...ref])).stdout)).toEqual({ replayed: 1 });
    await eventually(async () => (endpoint.received.length === 2 ? true : undefined));
    expect(endpoint.received[1]!.headers['webhook-id']).toBe(endpoint.received[0]!.headers['webhook-id']);
    expect(endpoint.received[1]!.body).toBe(endpoint.received[0]!.body);
    const [delivered] = await eventually(async () => {
      const log = JSON.parse((await adminCli(s, ['list-webhook-deliveries', ...ref, '--status', 'delivered'])).stdout) as Array<
        Record<string, unknown>
      >;
      return log.length === 1 ? log : undefined;
    });
    expect((delivered!['attempt_log'] as Array<Record<string, unknown>>).map((attempt) => attempt['outcome'])).toEqual([
      'failed',
      'failed',
      'succeeded',
    ]);

    // Another resource's operator reference finds no such endpoint.
    const other = await createTenant(s.stack);
    await expect(
      adminCli(s, ['list-webhook-deliveries', '--resource-id', String(other.resourceId), '--endpoint-id', String(created.id)]),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('Webhook endpoint not found'),
    });
  });

  it('refuses endpoints that are not https (http only to loopback outside production) and unknown types', async () => {
    const tenant = await createTenant(s.stack);
    await expect(subscribe(tenant, 'http://hooks.example.test/in')).rejects.toMatchObject({
      stderr: expect.stringContaining('url: https is required (http only to a loopback host outside production)'),
    });
    await expect(subscribe(tenant, 'https://hooks.example.test/in', 'member.teleported')).rejects.toMatchObject({
      stderr: expect.stringContaining('Unknown event type member.teleported'),
    });
    const types = JSON.parse((await adminCli(s, ['list-webhook-event-types'])).stdout) as Array<{ type: string; source_event: string }>;
    expect(types).toContainEqual({ type: 'member.signed_up', source_event: 'user_signup' });
    expect(types).toContainEqual({ type: 'membership.cancelled', source_event: 'membership_detached' });
    for (const [type, sourceEvent] of [
      ['payment.succeeded', 'transaction_succeeded'],
      ['payment.failed', 'transaction_failed'],
      ['payment.refunded', 'transaction_refunded'],
      ['payment.disputed', 'transaction_disputed'],
      ['membership.renewed', 'renewal_succeeded'],
      ['membership.renewal_failed', 'renewal_failed'],
      ['membership.lapsed', 'membership_lapsed'],
      ['ti_event.passes_purchased', 'ti_event_passes_issued'],
      ['ti_event.pass_assigned', 'ti_event_pass_assigned'],
      ['sponsorship.created', 'sponsorship_created'],
      ['sponsorship.slot_activated', 'sponsor_slot_activated'],
      ['sponsorship.sponsor_payment_turned_off', 'sponsor_payment_turned_off'],
    ]) {
      expect(types).toContainEqual({ type, source_event: sourceEvent });
    }
    expect(JSON.parse((await adminCli(s, ['list-webhook-endpoints', '--resource-id', String(tenant.resourceId)])).stdout)).toEqual([]);
  });

  it('a ticket bought at checkout sends the payment and the passes, without the purchase key', async () => {
    const tenant = await cardProviderTenant(s, { ti_events_system: true });
    const event = await ticketing.event(tenant, 'Launch');
    const ticket = await ticketing.ticket(event.id, 'General');
    const endpoint = await receiver();
    const created = await subscribe(tenant, endpoint.url, 'payment.succeeded', 'ti_event.passes_purchased');
    const m = await buyer(tenant);
    const bought = await pay(m.headers, [{ item_type: 'ti_ticket', item_key: String(ticket.id), quantity: 2 }]);
    expect(bought.status).toBe(200);
    const transactionId = (bought.body['transaction'] as Json)['id'];
    const passIds = (
      await s.db('community').collection('ti_event_ticket_passes').find({ ticket_id: ticket.id }).sort({ _id: 1 }).toArray()
    ).map((pass) => pass['_id']);

    const [paid] = await received(endpoint, created.secret, 'payment.succeeded');
    expect(verifyWebhook(created.secret, paid!).data).toEqual({
      resource_id: tenant.resourceId,
      transaction_id: transactionId,
      user_id: m.member.id,
      kind: 'checkout',
      amount: 5000,
      currency: 'USD',
    });
    const [passes] = await received(endpoint, created.secret, 'ti_event.passes_purchased');
    expect(verifyWebhook(created.secret, passes!).data).toEqual({
      resource_id: tenant.resourceId,
      ti_event_id: event.id,
      ticket_id: ticket.id,
      owner_id: m.member.id,
      pass_ids: passIds,
    });
  });
});
