import { httpError } from '@masthead/core/errors';

/** Identity errors the gateway raises itself (the identity service raises the rest). */

/** POST /cleanup-refresh without a signed-in user (document 1, C). */
export const userNotExist = () => httpError(404, 'user_not_exist', 'User does not exist');

/** POST /user/photo: the upload was cut at PHOTO_MAX_BYTES (ADR 0063). */
export const photoTooLarge = () => httpError(413, 'photo_too_large', 'The photo is larger than this service accepts');

/** POST /user/photo: no non-empty multipart field `photo` (ADR 0063). */
export const photoRequired = () => httpError(409, 'photo_required', 'Send the image as the multipart/form-data field photo');

/** POST /user/history: listed as unavailable; history is written by the service (ADR 0064). */
export const historyWriteUnavailable = () =>
  httpError(410, 'history_write_unavailable', 'History is recorded by the service; read it with GET /user/plans/history');
