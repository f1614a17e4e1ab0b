import { defineError } from '@masthead/core/errors';

// An unknown user is `userNotExist` (@masthead/core/errors).

/** Thrown by PUT /user when the body is not a JSON object. */
export const profileBodyNotObject = defineError({ status: 409, code: 'incorrect_data', description: 'The body must be a JSON object' });

/** Thrown by the photo upload when the content is not a JPEG, PNG, WebP or GIF image. */
export const unsupportedPhotoType = defineError({
  status: 415,
  code: 'unsupported_photo_type',
  description: 'The photo must be a JPEG, PNG, WebP or GIF image',
});

/** Thrown by the photo upload when the image's dimensions cannot be read or are out of bounds; the description says which. */
export const invalidPhoto = defineError(
  { status: 422, code: 'invalid_photo', description: '<what is wrong with the image>' },
  (description: string) => ({ description }),
);

/** Thrown by PUT /user/password when no resource password is set yet. */
export const passwordNotSet = defineError({
  status: 409,
  code: 'password_not_set',
  description: 'No resource password is set; set one with POST /user/password',
});

/** Thrown by POST /user/password when a resource password is already set. */
export const passwordAlreadySet = defineError({
  status: 409,
  code: 'password_already_set',
  description: 'A resource password is already set; change it with PUT /user/password',
});

/** Thrown by PUT /user/password without `current_password`. */
export const currentPasswordRequired = defineError({
  status: 409,
  code: 'invalid_current_password',
  description: 'current_password is required',
});

/** Thrown by PUT /user/password when `current_password` does not match. */
export const currentPasswordWrong = defineError({
  status: 409,
  code: 'invalid_current_password',
  description: 'The current password is not correct',
});
