import type { Request } from 'express';
import type { RequestContext } from '../auth/context.js';
import { jsonObject } from '../http/body.js';
import { groupExtraDataRows, serializeExtraDataRow } from '../serializers/extra-data.js';
import type { RouteHandler } from './types.js';

/** Member context guarantees a user and a resource (access class `member`). */
const scopeOf = (context: RequestContext) => ({ userId: context.caller.user!.id, resourceId: context.resource!.id });

/**
 * A list field of the JSON body: JSON only (no form fields), and a missing or malformed body
 * (too deep included, see http/body.ts) is simply absent, which the service answers with
 * incorrect_data. The service judges the items.
 */
const jsonList = (req: Request, name: string): unknown => jsonObject(req)?.[name];

/** GET /user/extra/data (document 2, section A). */
export const getExtraData: RouteHandler = async (context, _req, { extraData }) => {
  const { rows } = await extraData.listExtraData(scopeOf(context), { idempotent: true });
  return { body: { items: groupExtraDataRows(rows) } };
};

/** PUT /user/extra/data: upserts the valid items, answers with every group. */
export const putExtraData: RouteHandler = async (context, req, { extraData }) => {
  const { rows } = await extraData.putExtraData({ scope: scopeOf(context), extraGroups: jsonList(req, 'extra_groups') });
  return { body: { items: groupExtraDataRows(rows) } };
};

/** DELETE /user/extra/data: `{}`, no counts. */
export const deleteExtraData: RouteHandler = async (context, req, { extraData }) => {
  await extraData.deleteExtraData({ scope: scopeOf(context), extraGroups: jsonList(req, 'extra_groups') });
  return { body: {} };
};

/** GET /user/extra/data/custom-fields: the rows of the `custom_fields` group (docs/adr/0065). */
export const getCustomFields: RouteHandler = async (context, _req, { extraData }) => {
  const { rows } = await extraData.listCustomFields(scopeOf(context), { idempotent: true });
  return { body: { items: rows.map(serializeExtraDataRow) } };
};

/** PUT /user/extra/data/custom-fields: body `custom_fields` items `{field_key, field_value}`. */
export const putCustomFields: RouteHandler = async (context, req, { extraData }) => {
  const { rows } = await extraData.putCustomFields({ scope: scopeOf(context), customFields: jsonList(req, 'custom_fields') });
  return { body: { items: rows.map(serializeExtraDataRow) } };
};

/** DELETE /user/extra/data/custom-fields/{field_key}: `{}` like its sibling. */
export const deleteCustomField: RouteHandler = async (context, req, { extraData }) => {
  await extraData.deleteCustomField({ scope: scopeOf(context), fieldKey: String(req.params['field_key'] ?? '') });
  return { body: {} };
};
