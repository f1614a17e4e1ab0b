import { z } from 'zod';
import type { MemberScopeContext } from '../auth/context.js';
import { fromParams, text } from '../http/request.js';
import { documentedAs, jsonBodyDocument } from '../openapi/hints.js';
import type { Handler } from '../routes/define.js';
import { groupExtraDataRows, serializeExtraDataRow } from '../serializers/extra-data.js';

const scopeOf = (context: MemberScopeContext) => ({ userId: context.caller.user.id, resourceId: context.resource.id });

/**
 * A list field of the JSON body: JSON only (no form fields), and a missing or malformed body
 * (too deep included, see http/body.ts) is simply absent, which the service answers with
 * incorrect_data. The service judges the items.
 */
const jsonList = <K extends string>(name: K) =>
  documentedAs(
    z.object({ json: z.record(z.unknown()).optional() }).transform(({ json }) => json?.[name]),
    jsonBodyDocument({ [name]: z.array(z.record(z.unknown())) }),
  );

export const extraGroupsRequest = jsonList('extra_groups');
export const customFieldsRequest = jsonList('custom_fields');
export const fieldKeyRequest = fromParams({ field_key: text });

/** GET /user/extra/data (document 2, section A). */
export const getExtraData: Handler<'member'> = async (context, _input, { extraData }) => {
  const { rows } = await extraData.listExtraData(scopeOf(context), { idempotent: true });
  return { body: { items: groupExtraDataRows(rows) } };
};

/** PUT /user/extra/data: upserts the valid items, answers with every group. */
export const putExtraData: Handler<'member', unknown> = async (context, extraGroups, { extraData }) => {
  const { rows } = await extraData.putExtraData({ scope: scopeOf(context), extraGroups });
  return { body: { items: groupExtraDataRows(rows) } };
};

/** DELETE /user/extra/data: `{}`, no counts. */
export const deleteExtraData: Handler<'member', unknown> = async (context, extraGroups, { extraData }) => {
  await extraData.deleteExtraData({ scope: scopeOf(context), extraGroups });
  return { body: {} };
};

/** GET /user/extra/data/custom-fields: the rows of the `custom_fields` group (docs/adr/0065). */
export const getCustomFields: Handler<'member'> = async (context, _input, { extraData }) => {
  const { rows } = await extraData.listCustomFields(scopeOf(context), { idempotent: true });
  return { body: { items: rows.map(serializeExtraDataRow) } };
};

/** PUT /user/extra/data/custom-fields: body `custom_fields` items `{field_key, field_value}`. */
export const putCustomFields: Handler<'member', unknown> = async (context, customFields, { extraData }) => {
  const { rows } = await extraData.putCustomFields({ scope: scopeOf(context), customFields });
  return { body: { items: rows.map(serializeExtraDataRow) } };
};

/** DELETE /user/extra/data/custom-fields/{field_key}: `{}` like its sibling. */
export const deleteCustomField: Handler<'member', z.output<typeof fieldKeyRequest>> = async (
  context,
  { field_key: fieldKey },
  { extraData },
) => {
  await extraData.deleteCustomField({ scope: scopeOf(context), fieldKey });
  return { body: {} };
};
