import { invalidRequestField } from '@masthead/core/errors';
import { z } from 'zod';
import { isAdminRole } from '../auth/roles.js';
import { invalidSponsorshipId } from '../errors/community.js';
import { bodyNotJsonObject } from '../errors/request.js';
import { fromFields, jsonBoolean, raise, requiredJson, requiredJsonFields, text } from '../http/request.js';
import { documentedAs } from '../openapi/hints.js';
import type { Handler } from '../routes/define.js';
import {
  serializeRecipientSlot,
  serializeSlot,
  serializeSlotActivation,
  serializeSlotDetail,
  serializeSponsorship,
  serializeSponsorshipItem,
} from '../serializers/sponsorships.js';
import { communityCaller } from './invitations.js';

/**
 * Sponsorships (document 2 E; docs/adr/0154, 0155): the sponsor's reads and update, the named
 * slot operations and the recipient's tasks. The sponsor is the caller; community refuses
 * anyone else's sponsorship as not found.
 */

const READ = { idempotent: true };
const INT32_MAX = 2 ** 31 - 1;

/**
 * `{id}` "integer-sanitized, nonempty" (document 2 E): every character but digits and signs is
 * dropped, as a sanitizing filter does; nothing or zero left is 409 invalid_id. A negative or
 * out-of-range ID names no sponsorship (-1: community's not-found).
 */
const sanitizedId = z.unknown().transform((value, ctx) => {
  const kept = String(value ?? '').replace(/[^0-9+-]/g, '');
  const id = Number.parseInt(kept, 10);
  if (!kept || Number.isNaN(id) || id === 0) return raise(ctx, invalidSponsorshipId);
  return id > 0 && id <= INT32_MAX ? id : -1;
});

export const sponsorshipRequest = z
  .object({ params: z.object({ id: sanitizedId }) })
  .transform(({ params }) => ({ sponsorshipId: params.id }));
export const slotRequest = z.object({ params: z.object({ slot_id: sanitizedId }) }).transform(({ params }) => ({ slotId: params.slot_id }));

/** GET /sponsor/sponsored-subscriptions: no parameters, no pagination, newest first. */
export const listSponsorships: Handler<'member'> = async (context, _input, { sponsorships }) => ({
  body: { items: (await sponsorships.listSponsorships({ caller: communityCaller(context) }, READ)).items.map(serializeSponsorship) },
});

/** GET /sponsor/sponsored-subscriptions/{id}: `{item}` with the first associated membership. */
export const getSponsorship: Handler<'member', z.output<typeof sponsorshipRequest>> = async (
  context,
  { sponsorshipId },
  { sponsorships },
) => ({
  body: {
    item: serializeSponsorshipItem(
      await sponsorships.getSponsorship({ caller: communityCaller(context), sponsorshipId }, READ),
      isAdminRole(context.caller.role),
    ),
  },
});

/** A text field of PUT: absent or null is not sent; text as sent ('' erases nothing); another type is 409 invalid_<field>. */
const sentText = (field: 'title' | 'description') =>
  documentedAs(
    z.unknown().transform((value, ctx) => {
      if (value === undefined || value === null) return undefined;
      if (typeof value === 'string') return value;
      const message = `${field} must be text`;
      return raise(ctx, () => invalidRequestField(field, message, { [field]: message }));
    }),
    z.string().nullable(),
  );

/** What PUT of a sponsorship may change. */
const sponsorshipChanges = z.object({
  title: sentText('title'),
  description: sentText('description'),
  is_paying_by_sponsor: jsonBoolean,
  autorenew: jsonBoolean,
  is_allowed_next_subscription: jsonBoolean,
});

/**
 * PUT /sponsor/sponsored-subscriptions/{id}: a JSON object that is not empty (a falsey body is
 * 400 incorrect_data, document 2 E); flags count only as JSON booleans (anything else: unchanged).
 */
export const updateSponsorshipRequest = documentedAs(
  z
    .object({
      json: requiredJson(bodyNotJsonObject).transform((json, ctx) => (Object.keys(json).length > 0 ? json : raise(ctx, bodyNotJsonObject))),
      params: z.object({ id: sanitizedId }),
    })
    .transform(({ json, params }) => ({ json, sponsorshipId: params.id }))
    .pipe(
      z
        .object({
          sponsorshipId: z.number(),
          json: sponsorshipChanges,
        })
        .transform(({ sponsorshipId, json }) => ({
          sponsorshipId,
          title: json.title,
          description: json.description,
          isPayingBySponsor: json.is_paying_by_sponsor,
          autorenew: json.autorenew,
          isAllowedNextSubscription: json.is_allowed_next_subscription,
        })),
    ),
  z.object({ json: sponsorshipChanges }),
);

export const updateSponsorship: Handler<'member', z.output<typeof updateSponsorshipRequest>> = async (
  context,
  fields,
  { sponsorships },
) => ({
  body: {
    item: serializeSponsorshipItem(
      await sponsorships.updateSponsorship({ caller: communityCaller(context), ...fields }),
      isAdminRole(context.caller.role),
    ),
  },
});

/** GET /sponsor/sponsored-subscriptions/{id}/slots: base slots, newest first, no paginator. */
export const listSponsorshipSlots: Handler<'member', z.output<typeof sponsorshipRequest>> = async (
  context,
  { sponsorshipId },
  { sponsorships },
) => ({
  body: {
    items: (await sponsorships.listSponsorshipSlots({ caller: communityCaller(context), sponsorshipId }, READ)).items.map(serializeSlot),
  },
});

/** GET /sponsor/sponsored-subscriptions/slots/{slot_id}: an owned slot with its recipients. */
export const getSponsorSlot: Handler<'member', z.output<typeof slotRequest>> = async (context, { slotId }, { sponsorships }) => ({
  body: { item: serializeSlotDetail(await sponsorships.getSponsorSlot({ caller: communityCaller(context), slotId }, READ)) },
});

/** PUT .../slots/{slot_id}/invitation: `recipient_email` (JSON; another type counts as missing). */
export const inviteSlotRecipientRequest = z
  .object({ params: z.object({ slot_id: sanitizedId }), json: requiredJsonFields(bodyNotJsonObject, { recipient_email: text }) })
  .transform(({ params, json }) => ({ slotId: params.slot_id, recipientEmail: json.recipient_email }));

export const inviteSlotRecipient: Handler<'member', z.output<typeof inviteSlotRecipientRequest>> = async (
  context,
  fields,
  { sponsorships },
) => ({
  body: { item: serializeSlotDetail(await sponsorships.inviteSlotRecipient({ caller: communityCaller(context), ...fields })) },
});

/** PUT .../slots/{slot_id}/clear: a multi-seat slot loses its recipients and gets a new code. */
export const clearSlot: Handler<'member', z.output<typeof slotRequest>> = async (context, { slotId }, { sponsorships }) => ({
  body: { item: serializeSlotDetail(await sponsorships.clearSlot({ caller: communityCaller(context), slotId })) },
});

/** GET /recipient/sponsored-subscriptions/slots: slots invited to the member's email, not yet activated. */
export const listRecipientSlots: Handler<'member'> = async (context, _input, { sponsorships }) => ({
  body: { items: (await sponsorships.listRecipientSlots({ caller: communityCaller(context) }, READ)).items.map(serializeRecipientSlot) },
});

export const slotCodeRequest = z.object({ params: z.object({ code: text }) }).transform(({ params }) => ({ code: params.code.trim() }));

/** GET /recipient/sponsored-subscriptions/slots/{code}: the slot a code opens, with its sponsorship. */
export const previewSlot: Handler<'member', z.output<typeof slotCodeRequest>> = async (context, { code }, { sponsorships }) => ({
  body: { item: serializeRecipientSlot(await sponsorships.previewSlot({ caller: communityCaller(context), code }, READ)) },
});

/** PUT /recipient/sponsored-subscriptions/slots/activate: `activation_code` (JSON or form). */
export const activateSlotRequest = fromFields({ activation_code: text }).transform(({ activation_code }) => ({
  code: activation_code.trim(),
}));

export const activateSlot: Handler<'member', z.output<typeof activateSlotRequest>> = async (context, { code }, { sponsorships }) => ({
  body: serializeSlotActivation(await sponsorships.activateSlot({ caller: communityCaller(context), code })),
});

/** PUT /recipient/sponsored-subscriptions/slots/{slot_id}/sponsor/turn-off. */
export const turnOffSponsorPayment: Handler<'member', z.output<typeof slotRequest>> = async (context, { slotId }, { sponsorships }) => ({
  body: serializeSlotActivation(await sponsorships.turnOffSponsorPayment({ caller: communityCaller(context), slotId })),
});
