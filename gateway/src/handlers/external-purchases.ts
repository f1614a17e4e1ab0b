import { fieldError, incorrectDataNotAcceptable } from '@masthead/core/errors';
import type { ExternalPurchase, ExternalScope } from '@masthead/proto/billing/external';
import { z } from 'zod';
import type { MemberScopeContext } from '../auth/context.js';
import { isAdminRole } from '../auth/roles.js';
import { queryText, raise } from '../http/request.js';
import { documentedAs, jsonBodyDocument } from '../openapi/hints.js';
import type { Handler } from '../routes/define.js';
import { serializeMembership } from '../serializers/catalog.js';
import { serializeExternalTransaction } from '../serializers/transactions.js';

/**
 * External purchase records (document 2 I; OPERATIONS.md 8, 107–110; docs/adr/0146), service
 * account context. Bodies are JSON objects (406 incorrect_data otherwise); bad fields answer 409
 * `{error: true, error_fields}`, every bad field at once.
 */

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

type Fields = Record<string, string>;

const idOf = (value: unknown): number | undefined => {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  return /^\d{1,9}$/.test(text) && Number(text) > 0 ? Number(text) : undefined;
};

/** The fields every operation names: the member and the store's transaction ID. */
function target(json: Record<string, unknown>, fields: Fields) {
  const userId = idOf(json['user_id']);
  if (userId === undefined) fields['user_id'] = 'user_id must be a positive integer';
  const transactionId = typeof json['transaction_id'] === 'string' ? json['transaction_id'].trim() : '';
  if (!transactionId || transactionId.length > 255) fields['transaction_id'] = 'transaction_id is required (at most 255 characters)';
  return { userId: userId ?? 0, externalId: transactionId };
}

/** `external_source_id` (a product mapped to a Pricing) or `subscription_id` (a Pricing ID). */
function pricingChoice(json: Record<string, unknown>, fields: Fields, required: boolean) {
  const productId = typeof json['external_source_id'] === 'string' ? json['external_source_id'].trim() : '';
  const pricingId = idOf(json['subscription_id']) ?? 0;
  if (json['subscription_id'] !== undefined && pricingId === 0) fields['subscription_id'] = 'subscription_id must be a positive integer';
  else if (required && !productId && pricingId === 0) fields['external_source_id'] = 'external_source_id or subscription_id is required';
  return { productId, pricingId };
}

function terms(json: Record<string, unknown>, fields: Fields) {
  const endDate = json['end_date'];
  const autorenew = json['autorenew'];
  if (endDate !== undefined && (typeof endDate !== 'string' || !ISO_8601.test(endDate.trim()) || !(Date.parse(endDate) > Date.now())))
    fields['end_date'] = 'end_date must be an ISO 8601 date in the future';
  if (autorenew !== undefined && typeof autorenew !== 'boolean') fields['autorenew'] = 'autorenew must be a JSON boolean';
  return {
    endDate: typeof endDate === 'string' && !fields['end_date'] ? new Date(endDate.trim()).toISOString() : undefined,
    autorenew: typeof autorenew === 'boolean' ? autorenew : undefined,
  };
}

function money(json: Record<string, unknown>, fields: Fields) {
  const amount = json['amount'];
  const currency = json['currency'];
  if (amount !== undefined && !(typeof amount === 'number' && Number.isSafeInteger(amount) && amount >= 0))
    fields['amount'] = 'amount must be a non-negative integer in minor units';
  if (currency !== undefined && (typeof currency !== 'string' || !/^[A-Za-z]{3}$/.test(currency.trim())))
    fields['currency'] = 'currency must be a three-letter code';
  return {
    amount: typeof amount === 'number' && !fields['amount'] ? amount : undefined,
    currency: typeof currency === 'string' && !fields['currency'] ? currency.trim().toUpperCase() : undefined,
  };
}

/** How the document shows the fields each reader above reads (ADR 0208). */
const documented = {
  target: { user_id: z.union([z.number().int().min(1), z.string()]), transaction_id: z.string().max(255) },
  pricingChoice: {
    external_source_id: z.string().optional(),
    subscription_id: z.union([z.number().int().min(1), z.string()]).optional(),
  },
  money: { amount: z.number().int().min(0).optional(), currency: z.string().length(3).optional() },
  terms: { end_date: z.string().datetime({ offset: true }).optional(), autorenew: z.boolean().optional() },
  refund: { amount: z.number().int().min(1).optional(), refund_id: z.string().max(255).optional(), reason: z.string().optional() },
};

/**
 * A JSON object body read by `read`, documented as `fields`; the collected field problems answer
 * 409 together.
 */
const body = <T>(fields: z.ZodRawShape, read: (json: Record<string, unknown>, fields: Fields) => T) =>
  documentedAs(
    z.object({ form: z.boolean(), json: z.record(z.unknown()).optional() }).transform(({ form, json }, ctx) => {
      if (form || !json) return raise(ctx, incorrectDataNotAcceptable);
      const problems: Fields = {};
      const value = read(json, problems);
      if (Object.keys(problems).length > 0) return raise(ctx, () => fieldError(problems));
      return value;
    }),
    jsonBodyDocument(fields),
  );

export const recordRequest = body(
  { ...documented.target, ...documented.pricingChoice, ...documented.money, ...documented.terms },
  (json, fields) => ({
    ...target(json, fields),
    ...pricingChoice(json, fields, true),
    ...money(json, fields),
    ...terms(json, fields),
  }),
);
export const changeRequest = body({ ...documented.target, ...documented.pricingChoice, ...documented.terms }, (json, fields) => ({
  ...target(json, fields),
  ...pricingChoice(json, fields, false),
  ...terms(json, fields),
}));
export const downgradeRequest = body(documented.target, (json, fields) => target(json, fields));
export const refundRequest = body({ ...documented.target, ...documented.refund }, (json, fields) => {
  const refundId = json['refund_id'];
  const reason = json['reason'];
  if (refundId !== undefined && (typeof refundId !== 'string' || refundId.length > 255))
    fields['refund_id'] = 'refund_id must be text (at most 255 characters)';
  const amount = json['amount'];
  if (amount !== undefined && !(typeof amount === 'number' && Number.isSafeInteger(amount) && amount > 0))
    fields['amount'] = 'amount must be a positive integer';
  return {
    ...target(json, fields),
    amount: typeof amount === 'number' && !fields['amount'] ? amount : undefined,
    refundId: typeof refundId === 'string' ? refundId.trim() : '',
    reason: typeof reason === 'string' ? reason.trim().slice(0, 255) : '',
  };
});

const scopeOf = (context: MemberScopeContext): ExternalScope => ({
  resourceId: context.resource.id,
  resourceSettings: context.resource.settings ?? {},
  resourceTitle: context.resource.title,
});

/** `{transaction, subscription}` (and the fallback membership of an immediate downgrade). */
function answer(context: MemberScopeContext, outcome: ExternalPurchase, status = 200) {
  const admin = isAdminRole(context.caller.role);
  const json: Record<string, unknown> = {
    transaction: serializeExternalTransaction(outcome.transaction!),
    subscription: outcome.membership ? serializeMembership(outcome.membership, admin) : null,
  };
  if (outcome.fallback) json['default_subscription'] = serializeMembership(outcome.fallback, admin);
  return { status, body: json };
}

/** GET /integrations/external/transaction: `external_source_id` is the store's transaction ID (exact). */
export const externalTransactionRequest = z
  .object({ query: z.object({ external_source_id: queryText }) })
  .transform(({ query }) => (query.external_source_id ?? '').trim());

export const getExternalTransaction: Handler<'serviceAccount', string> = async (context, externalId, { externalPurchases }) => {
  const transaction = await externalPurchases.getExternalTransaction({ resourceId: context.resource.id, externalId }, { idempotent: true });
  return { body: { transaction: serializeExternalTransaction(transaction) } };
};

/** POST /integrations/external/subscription: 201 when recorded now, 200 when recorded before. */
export const recordExternalPurchase: Handler<'serviceAccount', z.output<typeof recordRequest>> = async (
  context,
  input,
  { externalPurchases },
) => {
  const outcome = await externalPurchases.recordExternalPurchase({ scope: scopeOf(context), ...input });
  return answer(context, outcome, outcome.created ? 201 : 200);
};

/** PUT /integrations/external/subscription. */
export const changeExternalPurchase: Handler<'serviceAccount', z.output<typeof changeRequest>> = async (
  context,
  input,
  { externalPurchases },
) => answer(context, await externalPurchases.changeExternalPurchase({ scope: scopeOf(context), ...input }));

/** DELETE /integrations/external/subscription: the configured downgrade. */
export const downgradeExternalPurchase: Handler<'serviceAccount', z.output<typeof downgradeRequest>> = async (
  context,
  input,
  { externalPurchases },
) => answer(context, await externalPurchases.downgradeExternalPurchase({ scope: scopeOf(context), ...input }));

/** PUT /integrations/external/refund. */
export const refundExternalPurchase: Handler<'serviceAccount', z.output<typeof refundRequest>> = async (
  context,
  input,
  { externalPurchases },
) => answer(context, await externalPurchases.refundExternalPurchase({ scope: scopeOf(context), ...input }));
