import { accountRequestNotExists, fieldError, incorrectDataNotAcceptable } from '@masthead/core/errors';
import { z } from 'zod';
import { raise } from '../http/request.js';
import { documentedAs, jsonBodyDocument, providerIdField } from '../openapi/hints.js';
import type { Handler } from '../routes/define.js';

/** Account requests (document 2 J): guest, fixed deployment resource; docs/adr/0123. */

/** Fixed acknowledgements: not proof of downstream completion (document 2 J). */
const RECEIVED = 'Your request has been received';
const PAYMENT_RECEIVED = 'Your payment has been received';

/** "Truthy decoded body": a JSON object with at least one field; anything else is 406. */
const truthyJson = z.object({ form: z.boolean(), json: z.record(z.unknown()).optional() }).transform(({ form, json }, ctx) => {
  if (form || !json || Object.keys(json).length === 0) return raise(ctx, incorrectDataNotAcceptable);
  return json;
});

export const accountRequestRequest = truthyJson;

/** POST /account-requests: accounts validates every field (409 error_fields) and saves. */
export const createAccountRequest: Handler<'external', Record<string, unknown>> = async (context, body, { accountRequests }) => {
  const record = await accountRequests.createAccountRequest({ bodyJson: JSON.stringify(body), remoteAddress: context.ip });
  return { body: { account_id: record.id, message: RECEIVED } };
};

/**
 * `account_id` (no numeric validation: anything that is not a record ID is not found) and
 * `cardprovider_token` (a nonempty string) are required; both missing are reported together.
 */
export const accountRequestPaymentRequest = documentedAs(
  truthyJson.transform((json, ctx) => {
    const fields: Record<string, string> = {};
    const accountId = json['account_id'];
    const token = json['cardprovider_token'];
    if (accountId === undefined || accountId === null || accountId === '') fields['account_id'] = 'account_id is required';
    if (typeof token !== 'string' || token.trim() === '') fields['cardprovider_token'] = 'cardprovider_token is required';
    if (Object.keys(fields).length > 0) return raise(ctx, () => fieldError(fields));
    const id = String(accountId);
    if (!/^\d{1,9}$/.test(id) || Number(id) === 0) return raise(ctx, accountRequestNotExists);
    return { accountId: Number(id), token: (token as string).trim() };
  }),
  jsonBodyDocument({ account_id: z.union([z.number().int(), z.string()]), cardprovider_token: providerIdField('token') }),
);

/** POST /account-requests-payment: billing charges the record at most once. */
export const payAccountRequest: Handler<'external', z.output<typeof accountRequestPaymentRequest>> = async (
  context,
  { accountId, token },
  { accountRequestPayments },
) => {
  await accountRequestPayments.payAccountRequest({ accountId, cardproviderToken: token });
  return { body: { account_id: accountId, message: PAYMENT_RECEIVED } };
};
