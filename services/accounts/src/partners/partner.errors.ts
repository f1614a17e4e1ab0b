import { defineError } from '@masthead/core/errors';

/** Thrown by CreatePartner (operator) when the title is empty once trimmed. */
export const partnerTitleRequired = defineError({ status: 400, code: 'invalid_title', description: 'title is required' });

/** Thrown by CreateResource (operator) when `partner_id` names no partner. */
export const partnerNotExists = defineError({ status: 404, code: 'partner_not_exists', description: 'Partner does not exist' });
