import { httpError, ServiceError } from '@masthead/core/errors';

/** No team has the ID (teams have no resource, so no resource filter applies). */
export const teamNotFound = () => httpError(404, 'team_not_found', 'Team not found');

/** The caller may not manage teams: no can-own-teams eligibility and no owner/admin role. */
export const noTeamPermission = () => httpError(401, 'incorrect_data', 'You have no permission to manage teams');

/** The user has no relationship with the team (or only the owner's, for member changes). */
export const teamUserNotFound = () => httpError(404, 'team_user_not_found', 'Team user not found');

/** A field of a team or team-member write is invalid: 409 with error_fields (document 2 Errors). */
export const invalidField = (field: string, code: string, message: string) =>
  new ServiceError({ status: 409, code, description: message, fields: { [field]: message } });
