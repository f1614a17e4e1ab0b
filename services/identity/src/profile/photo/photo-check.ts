import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';
import { invalidPhoto, unsupportedPhotoType } from '../profile.errors.js';

/** Image types a browser shows everywhere; SVG is left out (it can carry script). */
const ACCEPTED = new Map([
  ['image/jpeg', 'jpg'],
  ['image/png', 'png'],
  ['image/webp', 'webp'],
  ['image/gif', 'gif'],
]);

/** A side longer than this is no avatar and costs clients memory to decode (ADR 0063). */
export const MAX_PHOTO_SIDE = 4096;

export interface CheckedPhoto {
  mime: string;
  extension: string;
  width: number;
  height: number;
}

/**
 * Identifies the image from its bytes (never from the client's name or content type):
 * 415 unsupported_photo_type for anything but JPEG, PNG, WebP and GIF; 422 invalid_photo when
 * its dimensions cannot be read or are out of bounds.
 */
export async function checkPhoto(content: Uint8Array): Promise<CheckedPhoto> {
  const detected = await fileTypeFromBuffer(content);
  const extension = detected ? ACCEPTED.get(detected.mime) : undefined;
  if (!detected || !extension) throw unsupportedPhotoType();
  let size: { width?: number; height?: number };
  try {
    size = imageSize(content);
  } catch {
    throw invalidPhoto('The image cannot be read');
  }
  const { width = 0, height = 0 } = size;
  if (width < 1 || height < 1) throw invalidPhoto('The image cannot be read');
  if (width > MAX_PHOTO_SIDE || height > MAX_PHOTO_SIDE)
    throw invalidPhoto(`The image is larger than ${MAX_PHOTO_SIDE}×${MAX_PHOTO_SIDE} pixels`);
  return { mime: detected.mime, extension, width, height };
}
