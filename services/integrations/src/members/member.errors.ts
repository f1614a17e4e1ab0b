import { defineError } from '@masthead/core/errors';

/**
 * Thrown by the audience and listmgr operations when an eligible caller's `user_id` names no
 * user (document 2 H: 404 user_not_found; the user need not belong to the resource).
 */
export const userNotFound = defineError({ status: 404, code: 'user_not_found', description: 'User not found' });
