import { defineError } from '@masthead/core/errors';

/** A billing call without member or resource: a caller bug. */
export const memberScopeMissing = defineError({ status: 400, code: 'incorrect_data', description: 'member scope missing' });
