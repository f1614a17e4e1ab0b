import { defineError, invalidRequestField } from '@masthead/core/errors';

export { teamNotFound } from '@masthead/core/errors';

/** The caller may not manage teams: no can-own-teams eligibility and no owner/admin role. */
export const noTeamPermission = defineError({ status: 401, code: 'incorrect_data', description: 'You have no permission to manage teams' });

/** The user has no relationship with the team (or only the owner's, for member changes). */
export const teamUserNotFound = defineError({ status: 404, code: 'team_user_not_found', description: 'Team user not found' });

/** A field of a team, team-member or team-invite write is invalid: 409 with error_fields (document 2 Errors). */
export const invalidTeamField = (field: string, description: string) => invalidRequestField(field, description, { [field]: description });
