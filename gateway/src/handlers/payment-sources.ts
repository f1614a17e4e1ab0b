import { incorrectDataConflict, invalidCardCustomerId, invalidPaymentMethod, paymentSourceNotFound } from '@masthead/core/errors';
import type { MemberScope } from '@masthead/proto/billing';
import { z } from 'zod';
import type { MemberScopeContext } from '../auth/context.js';
import { pathId, raise, text } from '../http/request.js';
import { documentedAs, jsonBodyDocument, providerIdField } from '../openapi/hints.js';
import type { Handler } from '../routes/define.js';
import { serializePaymentCustomer, serializePaymentSource, serializeSavedMethod } from '../serializers/billing.js';

/** Member routes of billing's payment sources (document 1 D); docs/adr/0121, 0122. */

/** The member, the resource and its settings: billing reads mode and provider defaults there. */
export const scopeOf = (context: MemberScopeContext): MemberScope => {
  const user = context.caller.user;
  return {
    resourceId: context.resource.id,
    userId: user.id,
    email: user.email,
    name: [user.firstName, user.lastName].filter(Boolean).join(' '),
    resourceSettings: context.resource.settings ?? {},
    resourceKey: context.resource.publicKey,
    resourceTitle: context.resource.title,
  };
};

/** The JSON body as an object; a form or missing body is the operation's `incorrect_data`. */
const jsonBody = z.object({ form: z.boolean(), json: z.record(z.unknown()).optional() });

/** GET /user/payment-provider/cardprovider/customer: read or create the modern customer. */
export const getOrCreateCustomer: Handler<'member'> = async (context, _input, { paymentSources }) => {
  const customer = await paymentSources.getOrCreateCustomer(scopeOf(context));
  return { body: { payment_customer: serializePaymentCustomer(customer) } };
};

export const setupIntentRequest = documentedAs(
  jsonBody.transform(({ form, json }, ctx) => {
    if (form || !json) return raise(ctx, incorrectDataConflict);
    const customerId = text.parse(json['card_customer_id']).trim();
    if (!customerId) return raise(ctx, invalidCardCustomerId);
    return { cardCustomerId: customerId };
  }),
  jsonBodyDocument({ card_customer_id: providerIdField('customer') }),
);

/** POST …/setup-intents: `{setup_intent}` as the provider sent it. */
export const createSetupIntent: Handler<'member', z.output<typeof setupIntentRequest>> = async (
  context,
  { cardCustomerId },
  { paymentSources },
) => {
  const intent = await paymentSources.createSetupIntent({ scope: scopeOf(context), cardCustomerId, requestId: context.requestId });
  return { body: { setup_intent: JSON.parse(intent.json) as unknown } };
};

/** Save-intents reads only `setup_intent.payment_method` (document 1 D). */
export const saveIntentRequest = documentedAs(
  jsonBody.transform(({ form, json }, ctx) => {
    if (form || !json) return raise(ctx, incorrectDataConflict);
    const intent = json['setup_intent'];
    const method =
      intent !== null && typeof intent === 'object' ? text.parse((intent as Record<string, unknown>)['payment_method']).trim() : '';
    if (!method) return raise(ctx, invalidPaymentMethod);
    return { paymentMethodId: method };
  }),
  jsonBodyDocument({ setup_intent: z.object({ payment_method: providerIdField('payment_method') }) }),
);

/** POST …/save-intents: `{payment_method: saved method record}`. */
export const saveIntent: Handler<'member', z.output<typeof saveIntentRequest>> = async (
  context,
  { paymentMethodId },
  { paymentSources },
) => {
  const saved = await paymentSources.saveIntent({ scope: scopeOf(context), paymentMethodId });
  return { body: { payment_method: serializeSavedMethod(saved) } };
};

/** `pay-system`: a single trimmed text value; anything else counts as omitted. */
export const listSourcesRequest = z
  .object({ query: z.record(z.unknown()) })
  .transform(({ query }) => ({ paySystem: typeof query['pay-system'] === 'string' ? query['pay-system'].trim() : '' }));

/** GET /user/payment-sources: `{items}`, no pagination. */
export const listPaymentSources: Handler<'member', z.output<typeof listSourcesRequest>> = async (
  context,
  { paySystem },
  { paymentSources },
) => {
  const result = await paymentSources.listPaymentSources({ scope: scopeOf(context), paySystem }, { idempotent: true });
  return { body: { items: result.items.map(serializePaymentSource) } };
};

const SOURCE_TYPES = ['payment-method', 'user-card'] as const;

/** `{source_type}/{id}`: a known type and a local ID, else not found. */
export const sourceRequest = z
  .object({
    params: z.object({
      source_type: z
        .unknown()
        .transform((value, ctx) =>
          SOURCE_TYPES.includes(value as (typeof SOURCE_TYPES)[number]) ? (value as string) : raise(ctx, paymentSourceNotFound),
        ),
      id: pathId(paymentSourceNotFound),
    }),
  })
  .transform(({ params }) => ({ sourceType: params.source_type, id: params.id }));

/** PUT /user/payment-sources/{source_type}/{id}/default: `{item: source summary}`. */
export const selectDefaultSource: Handler<'member', z.output<typeof sourceRequest>> = async (
  context,
  { sourceType, id },
  { paymentSources },
) => {
  const source = await paymentSources.selectDefaultSource({ scope: scopeOf(context), sourceType, id });
  return { body: { item: serializePaymentSource(source) } };
};

/** DELETE /user/payment-sources/{source_type}/{id}: `{result: true}`. */
export const removeSource: Handler<'member', z.output<typeof sourceRequest>> = async (context, { sourceType, id }, { paymentSources }) => {
  await paymentSources.removeSource({ scope: scopeOf(context), sourceType, id });
  return { body: { result: true } };
};

/** `{id}` of /user/card/{id}: a legacy card is the `user-card` source of the same ID. */
export const cardRequest = z
  .object({ params: z.object({ id: pathId(paymentSourceNotFound) }) })
  .transform(({ params }) => ({ sourceType: 'user-card', id: params.id }));

/** POST /user/card/{id}/default: as PUT /user/payment-sources/user-card/{id}/default (ADR 0122). */
export const selectDefaultCard = selectDefaultSource;

/** DELETE /user/card/{id}: as DELETE /user/payment-sources/user-card/{id} (ADR 0122). */
export const removeCard = removeSource;
