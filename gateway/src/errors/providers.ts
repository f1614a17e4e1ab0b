import { defineError } from '@masthead/core/errors';

/* Request checks of the email-list and CRM operations (document 2 H; docs/adr/0162) that the
 * gateway makes before integrations is asked. Integrations raises the rest. */

/** PUT /integrations/crm/user/tags: the body is missing or not a JSON object (409, document 2 H). */
export const crmBodyNotJson = defineError({ status: 409, code: 'update_user_tag_error', description: 'The body must be JSON' });

/** PUT /integrations/crm/user/tags: `tags` is missing, empty or not a map of tag IDs to flags. */
export const crmTagsRequired = defineError({
  status: 409,
  code: 'update_user_tag_error',
  description: 'tags must be a non-empty map of tag IDs to flags',
});
