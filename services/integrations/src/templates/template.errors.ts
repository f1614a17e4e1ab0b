import { defineError } from '@masthead/core/errors';

/**
 * Thrown by GET /integrations/templates/{name} when no published template matches (or the name
 * breaks the path rule). Document 2 K: "body has error and error_description, no req_guid".
 */
export const templateNotFound = defineError({ status: 404, code: 'template_not_found', description: 'Template not found' }, () => ({
  body: { error: 'template_not_found', error_description: 'Template not found' },
}));

/** Thrown by UpsertTemplate (operator) for a name or version outside [A-Za-z0-9_-]. */
export const invalidTemplateKey = defineError(
  { status: 400, code: 'invalid_<field>', description: '<field> must be one or more letters, digits, hyphens or underscores' },
  (field: 'name' | 'version') => ({
    code: `invalid_${field}`,
    description: `${field} must be one or more letters, digits, hyphens or underscores`,
  }),
);
