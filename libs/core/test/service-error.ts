import { ServiceError } from '../src/errors/index.js';

/** The ServiceError `run` throws; anything else thrown, or nothing, fails the test. */
export function serviceErrorOf(run: () => unknown): ServiceError {
  try {
    run();
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected a ServiceError');
}
