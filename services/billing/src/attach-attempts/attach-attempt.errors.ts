import { defineError } from '@masthead/core/errors';

/** Thrown when the member used every attempt of the window (docs/adr/0125). */
export const attachAttemptsExceeded = defineError(
  { status: 429, code: 'card_attach_attempts_exceeded', description: 'At most <limit> card attachment attempts per hour; try again later' },
  (limit: number) => ({ description: `At most ${limit} card attachment attempts per hour; try again later` }),
);
