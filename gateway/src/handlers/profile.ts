import { z } from 'zod';
import type { MemberScopeContext } from '../auth/context.js';
import { historyWriteUnavailable, photoRequired, photoTooLarge } from '../errors/identity.js';
import { fromFields, text } from '../http/request.js';
import type { Handler } from '../routes/define.js';
import { serializeUser } from '../serializers/user.js';

/** The member and resource every profile write is about. */
const memberOf = (context: MemberScopeContext) => ({ userId: context.caller.user.id, resourceId: context.resource.id });

/**
 * PUT /user (document 1, section C): the JSON object goes to identity as sent, where the
 * table's type-sensitive rules live in one place (ADR 0060). `tags` is in the result only when
 * the request's `tags` was an array.
 */
export const updateProfileRequest = z
  .object({ json: z.record(z.unknown()).optional() })
  .transform(({ json }) => (json ? JSON.stringify(json) : ''));

export const updateProfile: Handler<'member', string> = async (context, changesJson, { profile }) => {
  const result = await profile.updateProfile({ ...memberOf(context), changesJson }, { requestId: context.requestId });
  const body = serializeUser(result.user!);
  if (result.tagsReplaced) body['tags'] = result.tags;
  return { body };
};

/** GET /user/tags: `{tags: [slug…]}`, the shape PUT /user returns them in (ADR 0060). */
export const listTags: Handler<'member'> = async (context, _input, { profile }) => {
  const { tags } = await profile.listTags(memberOf(context), { requestId: context.requestId, idempotent: true });
  return { body: { tags } };
};

/** POST /user/password: `password` (JSON or form); only while no resource password is set. */
export const setPasswordRequest = fromFields({ password: text });

export const setPassword: Handler<'member', z.output<typeof setPasswordRequest>> = async (context, { password }, { profile }) => {
  await profile.setPassword({ ...memberOf(context), password }, { requestId: context.requestId });
  return { body: { result: true } };
};

/** PUT /user/password: `current_password` and `password`; ends the member's other sessions here. */
export const changePasswordRequest = fromFields({ current_password: text, password: text });

export const changePassword: Handler<'member', z.output<typeof changePasswordRequest>> = async (context, fields, { profile }) => {
  const result = await profile.changePassword(
    {
      ...memberOf(context),
      sessionId: context.caller.sessionId,
      currentPassword: fields.current_password,
      password: fields.password,
    },
    { requestId: context.requestId },
  );
  return { body: { result: true, revoked_sessions: result.revokedSessions } };
};

/** GET /user/has-password: whether this resource's relationship has its own password. */
export const hasPassword: Handler<'member'> = async (context, _input, { profile }) => {
  const result = await profile.hasPassword(memberOf(context), { requestId: context.requestId, idempotent: true });
  return { body: { result: result.hasPassword } };
};

/**
 * POST /user/photo: multipart/form-data with the image in the field `photo` (ADR 0063). Size is
 * checked here (the upload is cut at PHOTO_MAX_BYTES); type and dimensions by identity.
 */
export const uploadPhoto: Handler<'member'> = async (context, _input, { profile }, req) => {
  const file = req.uploadedFile;
  if (file?.truncated) throw photoTooLarge();
  if (!file || file.field !== 'photo' || file.content.length === 0) throw photoRequired();
  const user = await profile.uploadPhoto({ ...memberOf(context), content: file.content }, { requestId: context.requestId });
  return { body: serializeUser(user) };
};

/**
 * POST /user/history: the spec lists it as unavailable. Membership history is written by the
 * service itself, so a client gets a clear 410 rather than 501 (ADR 0064).
 */
export const writeHistory: Handler<'member'> = () => Promise.reject(historyWriteUnavailable());
