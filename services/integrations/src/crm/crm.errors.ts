import { defineError } from '@masthead/core/errors';

/* GET /integrations/crm/tags (document 2 H). */

/** The resource's CRM active setting is off (or no CRM configuration exists). */
export const crmTagsNotEnabled = defineError({
  status: 403,
  code: 'crm_get_tags_error',
  description: 'The crm integration is not enabled for this resource',
});

/** The stored tags could not be read (the local lookup failed). */
export const crmTagsUnreadable = defineError({
  status: 409,
  code: 'crm_get_tags_error',
  description: 'The stored CRM tags could not be read',
});

/* GET /integrations/crm/user/tags (document 2 H). */

/** The member has no relationship with the resource (or a removed one). */
export const userTagsNotInResource = defineError({
  status: 404,
  code: 'get_user_tags_error',
  description: 'The user is not a member of this resource',
});

/** The resource's CRM active setting is off (or no CRM configuration exists). */
export const userTagsNotEnabled = defineError({
  status: 403,
  code: 'get_user_tags_error',
  description: 'The crm integration is not enabled for this resource',
});

/** Empty key or account name; contact create/update failed; tag list or local matching failed. */
export const userTagsFailed = defineError(
  { status: 409, code: 'get_user_tags_error', description: '<the stage that failed>' },
  (description: string) => ({ description }),
);

/* PUT /integrations/crm/user/tags (document 2 H). */

/** The member has no relationship with the resource (or a removed one). */
export const updateTagsNotInResource = defineError({
  status: 404,
  code: 'update_user_tag_error',
  description: 'The user is not a member of this resource',
});

/** Like its GET sibling (docs/adr/0163): the spec lists no code for a disabled CRM here. */
export const updateTagsNotEnabled = defineError({
  status: 403,
  code: 'update_user_tag_error',
  description: 'The crm integration is not enabled for this resource',
});

/** Provider stage failures (and a body the gateway could not read: gateway/src/errors/providers.ts). */
export const updateTagsFailed = defineError(
  { status: 409, code: 'update_user_tag_error', description: '<the stage that failed>' },
  (description: string) => ({ description }),
);

/* Operator calls. */

/** SetTagFlags for a provider tag the resource has not imported. */
export const crmTagNotFound = defineError({ status: 404, code: 'crm_tag_not_found', description: 'No stored CRM tag has this tag_id' });

/** ImportTags when the configuration is incomplete or the provider refused or did not answer. */
export const crmImportFailed = defineError(
  { status: 409, code: 'crm_import_error', description: '<why the import failed>' },
  (description: string) => ({ description }),
);
