import { defineError } from '../errors/catalogue.js';

/**
 * Thrown when an internal call arrives without the caller's scope it needs, or with a resource or
 * member ID that is not positive: a bug in the calling process, never a tenant of its own. A
 * missing scope once decoded as resource 0 and user 0, a scope that matched records of no
 * resource, or of every resource where a filter left the resource out.
 */
export const callerScopeMissing = defineError(
  { status: 400, code: 'incorrect_data', description: '<what> scope missing' },
  (what: string) => ({ description: `${what} scope missing` }),
);

/** A wire scope: every scope message names the resource, most the member too. */
interface WireScope {
  resourceId: number;
  userId?: number;
}

/** Which IDs the operation needs; the resource always. */
export interface ScopeNeeds {
  /** The scope must name a member (userId > 0). */
  member?: boolean;
}

/**
 * The caller's scope of an internal call, as its handler receives it (proto3 leaves an absent
 * message `undefined`): throws `callerScopeMissing` unless the resource, and the member where
 * `needs.member`, are positive IDs. Every service unwraps its scope messages through this, so a
 * forgotten scope fails the call instead of becoming resource 0.
 */
export function requireScope<S extends WireScope>(scope: S | undefined, what: string, needs: ScopeNeeds = {}): S {
  if (!scope || !(scope.resourceId > 0)) throw callerScopeMissing(what);
  if (needs.member && !((scope.userId ?? 0) > 0)) throw callerScopeMissing(what);
  return scope;
}
