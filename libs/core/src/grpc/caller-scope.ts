import { callerScopeMissing } from '../errors/common.js';

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
