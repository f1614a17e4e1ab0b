import { incorrectDataNotAcceptable } from '@masthead/core/errors';
import { parsePageRequest, toPageQuery } from '@masthead/core/pagination';
import { z } from 'zod';
import { fromFields, idOrZero, parsedWith, requiredJson, text } from '../http/request.js';
import { documentedAs } from '../openapi/hints.js';
import { serializePaginator } from '../serializers/catalog.js';
import {
  serializeEventAccess,
  serializePass,
  serializePassDetail,
  serializePassInvitation,
  serializePassInvitePreview,
  serializeUnassignLimit,
} from '../serializers/ti-events.js';
import { communityCaller } from './invitations.js';
import { type eventRequest, ticketing } from './ti-events.js';

/**
 * The named pass operations of document 2 F (docs/adr/0152): owners' reads and changes, the
 * recipient's invitation, event-wide reads. Owner bodies are JSON objects (406 incorrect_data
 * otherwise, as section C's); the recipient's code is JSON or form, as POST /invite-validation.
 */

const READ = { idempotent: true };

/** `{id}` of a pass: malformed is 0, which community answers 404 ti_event_pass_not_found. */
export const passRequest = z.object({ params: z.object({ id: idOrZero }) }).transform(({ params }) => ({ passId: params.id }));

const withJson = <T extends z.ZodRawShape>(shape: T) =>
  z.object({
    params: z.object({ id: idOrZero }),
    json: documentedAs(requiredJson(incorrectDataNotAcceptable).pipe(z.object(shape).passthrough()), z.object(shape)),
  });

export const eventPassesRequest = z
  .object({ params: z.object({ id: idOrZero }), query: parsedWith(parsePageRequest) })
  .transform(({ params, query }) => ({ eventId: params.id, page: query }));

/** GET /user/ti-event/{id}/passes: every pass of the event (no owner or assignee restriction). */
export const listEventPasses = ticketing<'member', z.output<typeof eventPassesRequest>>(async (context, { eventId, page }, { passes }) => {
  const result = await passes.listEventPasses({ resourceId: context.resource.id, tiEventId: eventId, query: toPageQuery(page) }, READ);
  return { body: { items: result.items.map(serializePass), paginator: serializePaginator(result.paginator) } };
});

/** GET /user/ti-event/{id}/access: assignment is access; owning is not. */
export const eventAccess = ticketing<'member', z.output<typeof eventRequest>>(async (context, { eventId }, { passes }) => ({
  body: serializeEventAccess(
    await passes.getEventAccess({ resourceId: context.resource.id, userId: context.caller.user.id, tiEventId: eventId }, READ),
  ),
}));

/** GET /user/pass/{id}: an owned pass with its invitation. */
export const getPass = ticketing<'member', z.output<typeof passRequest>>(async (context, { passId }, { passes }) => ({
  body: serializePassDetail(await passes.getPass({ caller: communityCaller(context), passId }, READ)),
}));

/** PUT /user/pass/{id}/assign: `assign_id`, a JSON integer (anything else is 409 invalid_assign_id). */
export const assignPassRequest = withJson({ assign_id: z.unknown() }).transform(({ params, json }) => ({
  passId: params.id,
  assignId:
    typeof json.assign_id === 'number' && Number.isSafeInteger(json.assign_id) && json.assign_id > 0 && json.assign_id < 2 ** 31
      ? json.assign_id
      : 0,
}));

export const assignPass = ticketing<'member', z.output<typeof assignPassRequest>>(async (context, fields, { passes }) => ({
  body: serializePassDetail(await passes.assignPass({ caller: communityCaller(context), ...fields })),
}));

/** GET /user/pass/{id}/unassign: how often the owner may still take the pass back. */
export const unassignLimit = ticketing<'member', z.output<typeof passRequest>>(async (context, { passId }, { passes }) => ({
  body: serializeUnassignLimit(await passes.getUnassignLimit({ caller: communityCaller(context), passId }, READ)),
}));

/** POST /user/pass/{id}/invite: `email` (text; another type counts as missing: 409 invalid_email). */
export const invitePassRequest = withJson({ email: text }).transform(({ params, json }) => ({ passId: params.id, email: json.email }));

export const invitePassAttendee = ticketing<'member', z.output<typeof invitePassRequest>>(async (context, fields, { passes }) => ({
  status: 201,
  body: serializePassInvitation(await passes.inviteAttendee({ caller: communityCaller(context), ...fields })),
}));

/** DELETE /user/pass/{id}/invite: withdraws the invitation, or takes the pass back (limited). */
export const deletePassInvite = ticketing<'member', z.output<typeof passRequest>>(async (context, { passId }, { passes }) => ({
  body: serializePassDetail(await passes.deleteInvitation({ caller: communityCaller(context), passId })),
}));

/** PUT /user/pass/{id}/extra: `extra`, a JSON object, replaces the attendee data (else 409 invalid_extra). */
export const passExtraRequest = withJson({ extra: z.unknown() }).transform(({ params, json }) => ({
  passId: params.id,
  extra:
    json.extra !== null && typeof json.extra === 'object' && !Array.isArray(json.extra)
      ? (json.extra as Record<string, unknown>)
      : undefined,
}));

export const replacePassExtra = ticketing<'member', z.output<typeof passExtraRequest>>(async (context, fields, { passes }) => ({
  body: serializePassDetail(await passes.replaceExtra({ caller: communityCaller(context), ...fields })),
}));

/** The recipient's `code`: text, trimmed; JSON preferred, else form (as POST /invite-validation). */
export const passInviteCodeRequest = fromFields({ code: text.transform((value) => value.trim()) });

/** POST /ti-event/pass/invite-validation: guest preview of a pending pass invitation. */
export const validatePassInvite = ticketing<'guestWithResource', z.output<typeof passInviteCodeRequest>>(
  async (context, { code }, { passes }) => ({
    body: serializePassInvitePreview(await passes.validatePassInvite({ resourceId: context.resource.id, code }, READ)),
  }),
);

/** POST /ti-event/pass/invite-activation: the invited member becomes the attendee. */
export const activatePassInvite = ticketing<'member', z.output<typeof passInviteCodeRequest>>(async (context, { code }, { passes }) => ({
  body: { result: true, pass: serializePassDetail(await passes.activatePassInvite({ caller: communityCaller(context), code })) },
}));
