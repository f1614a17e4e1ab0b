import { httpError } from '@masthead/core/errors';

/** Thrown when a plan is absent, inactive (for member-facing reads) or of another resource. */
export const planNotFound = () => httpError(404, 'plan_not_found', 'Plan not found');
