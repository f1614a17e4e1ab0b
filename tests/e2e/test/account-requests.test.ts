import { randomBytes } from 'node:crypto';
import { FAKE_PROVIDER_KEY } from '@masthead/local-infra';
import { beforeAll, describe, expect, it } from 'vitest';
import { connections, localStripe } from './card-provider-support.js';
import { anyRequestId, collectEvents, eventWhere, useStack } from './support.js';

type Json = Record<string, unknown>;

/** Account requests (document 2 J): accounts records them, billing charges them at most once (docs/adr/0123). */
describe('account requests', () => {
  const DEPLOYMENT_RESOURCE_ID = 9000;
  const s = useStack({ env: { ACCOUNT_REQUEST_RESOURCE_ID: String(DEPLOYMENT_RESOURCE_ID) } });
  const provider = localStripe();

  const application = (fields: Json = {}): Json => ({
    first_name: 'Ada',
    last_name: 'Lovelace',
    company_name: 'Analytical Press',
    job_title: 'Publisher',
    email: ` Ada-${randomBytes(4).toString('hex')}@Example.TEST `,
    plan: 'pro',
    ...fields,
  });
  const apply = (json: unknown, headers: Record<string, string> = {}) => s.api('/account-requests', { method: 'POST', headers, json });
  const pay = (json: unknown) => s.api('/account-requests-payment', { method: 'POST', json });

  beforeAll(async () => {
    // The deployment's own key (resource 0, live), stored the way an operator stores it.
    const client = connections(s);
    await client.setSecretKey({ resourceId: 0, mode: 'live', secretKey: FAKE_PROVIDER_KEY });
    client.close();
  });

  describe('POST /account-requests', () => {
    it('records the application under the deployment resource and emits account_request', async () => {
      const events = collectEvents(s.nats, 'account_request');
      // A resource header selects nothing here (document 2 J), even an unknown one.
      const response = await apply(application({ number_of_websites: '3', terms_and_conditions: true, phone_number: '+33 1' }), {
        resource: 'no-such-key',
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ account_id: expect.any(Number), message: expect.any(String) });
      const id = response.body['account_id'] as number;
      const row = await s
        .db('accounts')
        .collection('account_requests')
        .findOne({ _id: id as never });
      expect(row).toMatchObject({
        resource_id: DEPLOYMENT_RESOURCE_ID,
        email: expect.stringMatching(/^ada-[0-9a-f]{8}@example\.test$/),
        number_of_websites: 3,
        plan: 'pro',
      });
      const event = await eventWhere(events, 'account_request_id', id);
      expect(event).toMatchObject({
        resource_id: DEPLOYMENT_RESOURCE_ID,
        payload: { email: row!['email'], plan: 'pro', resource_id: DEPLOYMENT_RESOURCE_ID },
      });
      // No duplicate guard: the same application again is another record.
      const again = await apply(application({ email: row!['email'] }));
      expect(again.body['account_id']).not.toBe(id);
    });

    it('answers 406 incorrect_data for a body that is not a truthy JSON object', async () => {
      for (const json of [undefined, {}, [1], 'text']) {
        const response = await apply(json);
        expect(response.status).toBe(406);
        expect(response.body).toEqual({ error: 'incorrect_data', error_description: expect.any(String), req_guid: anyRequestId });
      }
    });

    it('answers 409 with error_fields for every invalid field', async () => {
      const response = await apply({ email: 'not-an-email', number_of_websites: 11, cardprovider_token: '' });
      expect(response.status).toBe(409);
      expect(response.body).toMatchObject({
        error: true,
        error_fields: {
          first_name: expect.any(String),
          last_name: expect.any(String),
          company_name: expect.any(String),
          job_title: expect.any(String),
          email: expect.any(String),
          plan: expect.any(String),
          number_of_websites: expect.any(String),
          cardprovider_token: expect.any(String),
        },
      });
      const zero = await apply(application({ number_of_websites: 0 }));
      expect(Object.keys(zero.body['error_fields'] as Json)).toEqual(['number_of_websites']);
    });
  });

  describe('POST /account-requests-payment', () => {
    async function recorded(websites: number) {
      const response = await apply(application({ number_of_websites: websites }));
      const id = response.body['account_id'] as number;
      const row = await s
        .db('accounts')
        .collection('account_requests')
        .findOne({ _id: id as never });
      return { id, email: row!['email'] as string };
    }
    const token = async () => (await provider.cardToken())['id'] as string;

    it('charges 19900 × websites in USD once, however often and however concurrently it is retried', async () => {
      const { id, email } = await recorded(2);
      const answers = await Promise.all(Array.from({ length: 4 }, async () => pay({ account_id: id, cardprovider_token: await token() })));
      for (const answer of answers) {
        // A concurrent duplicate that waited too long answers the documented 409; none charges.
        expect([200, 409]).toContain(answer.status);
      }
      const retry = await pay({ account_id: String(id), cardprovider_token: await token() });
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual({ account_id: id, message: expect.any(String) });
      const customers = await provider.customersOf(email);
      expect(customers).toHaveLength(1);
      const charges = await provider.chargesOf(customers[0]!['id'] as string);
      expect(charges.map((charge) => [charge['amount'], charge['currency']])).toEqual([[39800, 'usd']]);
      const row = await s
        .db('accounts')
        .collection('account_requests')
        .findOne({ _id: id as never });
      expect(row).toMatchObject({ cardprovider_customer_id: customers[0]!['id'], cardprovider_charge_id: charges[0]!['id'] });
    });

    it('answers each documented error', async () => {
      const noBody = await pay(undefined);
      expect(noBody.status).toBe(406);
      expect(noBody.body['error']).toBe('incorrect_data');
      const missing = await pay({ plan: 'pro' });
      expect(missing.status).toBe(409);
      expect(missing.body).toMatchObject({
        error: true,
        error_fields: { account_id: expect.any(String), cardprovider_token: expect.any(String) },
      });
      for (const accountId of [987654, 'abc']) {
        const unknown = await pay({ account_id: accountId, cardprovider_token: 'tok_x' });
        expect(unknown.status).toBe(404);
        expect(unknown.body).toEqual({
          error: 'account_request_not_exists',
          error_description: expect.any(String),
          req_guid: anyRequestId,
        });
      }
      const { id } = await recorded(1);
      const badToken = await pay({ account_id: id, cardprovider_token: 'tok_does_not_exist' });
      expect(badToken.status).toBe(409);
      expect(badToken.body).toEqual({
        error: 'account_request_payment_error',
        error_description: expect.any(String),
        req_guid: anyRequestId,
      });
    });
  });
});
