import { defineError } from '@masthead/core/errors';

/** Identity errors the gateway raises itself (the identity service raises the rest). */

/** POST /user/photo: the upload was cut at PHOTO_MAX_BYTES (ADR 0063). */
export const photoTooLarge = defineError({
  status: 413,
  code: 'photo_too_large',
  description: 'The photo is larger than this service accepts',
});

/** POST /user/photo: no non-empty multipart field `photo` (ADR 0063). */
export const photoRequired = defineError({
  status: 409,
  code: 'photo_required',
  description: 'Send the image as the multipart/form-data field photo',
});

/** POST /user/history: listed as unavailable; history is written by the service (ADR 0064). */
export const historyWriteUnavailable = defineError({
  status: 410,
  code: 'history_write_unavailable',
  description: 'History is recorded by the service; read it with GET /user/plans/history',
});
