import { isServiceError, type ServiceError } from '@masthead/core/errors';
import type { Logger } from '@masthead/core/logging';

/**
 * A read whose unexpected failure answers the operation's documented error (document 2's
 * "caught exception": 409 ti_events, sponsor_subscriptions_error, ...) instead of a 500. The
 * cause is logged; a ServiceError (a domain refusal, a peer's answer) passes through unchanged.
 */
export const caught =
  (logger: Logger) =>
  <A extends unknown[], R>(failure: () => ServiceError, action: (...args: A) => Promise<R>) =>
  async (...args: A): Promise<R> => {
    try {
      return await action(...args);
    } catch (error) {
      if (isServiceError(error)) throw error;
      logger.error({ err: error, code: failure().code }, 'read failed');
      throw failure();
    }
  };
