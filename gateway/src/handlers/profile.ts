import { httpError } from '@masthead/core/errors';
import { bodyFields, stringField } from '../http/body.js';
import { serializeUser } from '../serializers/user.js';
import type { RouteHandler } from './types.js';

/** The member and resource every profile write is about (member access guarantees both). */
const memberOf = (context: Parameters<RouteHandler>[0]) => ({ userId: context.caller.user!.id, resourceId: context.resource!.id });

/**
 * PUT /user (document 1, section C): the JSON object goes to identity as sent, where the
 * table's type-sensitive rules live in one place (ADR 0060). `tags` is in the result only when
 * the request's `tags` was an array.
 */
export const updateProfile: RouteHandler = async (context, req, { profile }) => {
  const json = req.decoded.json;
  const isObject = json !== null && typeof json === 'object' && !Array.isArray(json);
  const result = await profile.updateProfile({ ...memberOf(context), changesJson: isObject ? JSON.stringify(json) : '' });
  const body = serializeUser(result.user!);
  if (result.tagsReplaced) body['tags'] = result.tags;
  return { body };
};

/** GET /user/tags: `{tags: [slug…]}`, the shape PUT /user returns them in (ADR 0060). */
export const listTags: RouteHandler = async (context, _req, { profile }) => {
  const { tags } = await profile.listTags(memberOf(context), { idempotent: true });
  return { body: { tags } };
};

/** POST /user/password: `password` (JSON or form); only while no resource password is set. */
export const setPassword: RouteHandler = async (context, req, { profile }) => {
  const password = stringField(bodyFields(req), 'password');
  await profile.setPassword({ ...memberOf(context), password });
  return { body: { result: true } };
};

/** PUT /user/password: `current_password` and `password`; ends the member's other sessions here. */
export const changePassword: RouteHandler = async (context, req, { profile }) => {
  const fields = bodyFields(req);
  const result = await profile.changePassword({
    ...memberOf(context),
    sessionId: context.caller.sessionId,
    currentPassword: stringField(fields, 'current_password'),
    password: stringField(fields, 'password'),
  });
  return { body: { result: true, revoked_sessions: result.revokedSessions } };
};

/** GET /user/has-password: whether this resource's relationship has its own password. */
export const hasPassword: RouteHandler = async (context, _req, { profile }) => {
  const result = await profile.hasPassword(memberOf(context), { idempotent: true });
  return { body: { result: result.hasPassword } };
};

/**
 * POST /user/photo: multipart/form-data with the image in the field `photo` (ADR 0063). Size is
 * checked here (the upload is cut at PHOTO_MAX_BYTES); type and dimensions by identity.
 */
export const uploadPhoto: RouteHandler = async (context, req, { profile }) => {
  const file = req.uploadedFile;
  if (file?.truncated) throw httpError(413, 'photo_too_large', 'The photo is larger than this service accepts');
  if (!file || file.field !== 'photo' || file.content.length === 0) {
    throw httpError(409, 'photo_required', 'Send the image as the multipart/form-data field photo');
  }
  const user = await profile.uploadPhoto({ ...memberOf(context), content: file.content });
  return { body: serializeUser(user) };
};

/**
 * POST /user/history: the spec lists it as unavailable. Membership history is written by the
 * service itself, so a client gets a clear 410 rather than 501 (ADR 0064).
 */
export const writeHistory: RouteHandler = () =>
  Promise.reject(httpError(410, 'history_write_unavailable', 'History is recorded by the service; read it with GET /user/plans/history'));
