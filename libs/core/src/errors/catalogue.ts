import { ServiceError, type ServiceErrorInit } from './service-error.js';

/**
 * One entry of an error catalogue: the status, code and description a caller sees. Written as a
 * literal so that `scripts/error-reference.mjs` can read it without running the code (ADR 0108).
 * A code in angle brackets (`invalid_<field>`) names a family whose code is made per call.
 */
export interface ErrorDefinition {
  readonly status: number;
  readonly code: string;
  readonly description: string;
}

/** What a call may add to its definition: the text that depends on the call, field messages. */
export type ErrorDetail = Partial<Pick<ServiceErrorInit, 'code' | 'description' | 'fields' | 'body'>>;

/** A named error constructor; `definition` is the catalogue entry it raises. */
export type ErrorConstructor<Args extends unknown[] = []> = ((...args: Args) => ServiceError) & {
  readonly definition: ErrorDefinition;
};

/**
 * Makes a named constructor from a catalogue entry. `detail` is for entries whose text depends
 * on the call (a reason, the bad fields); it may replace the code only of a family entry.
 */
export function defineError<Args extends unknown[] = []>(
  definition: ErrorDefinition,
  detail?: (...args: Args) => ErrorDetail,
): ErrorConstructor<Args> {
  const construct = (...args: Args) => new ServiceError({ ...definition, ...detail?.(...args) });
  return Object.assign(construct, { definition });
}

/** Whether `error` was raised from one of these catalogue entries (it may have crossed a hop). */
export const isErrorOf = (error: unknown, ...entries: readonly Pick<ErrorConstructor<never>, 'definition'>[]): error is ServiceError =>
  error instanceof ServiceError && entries.some((entry) => entry.definition.code === error.code);
