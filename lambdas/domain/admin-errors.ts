/**
 * The admin's errors, in a module without the input schemas: dead-letters.ts throws them, and the sweeper and
 * deliverer that bundle it must not carry the input schemas. Each is an input refusal (contract/validation.ts) with
 * its own status.
 */

import { AdminInputError } from '#contract/validation';

export { AdminInputError };

/** The id a request is about names nothing. */
export class AdminNotFoundError extends AdminInputError {
  override readonly status = 404;
  override readonly code = 'not_found';
}

/** The request is well formed but the current state forbids it, e.g. testing a disabled destination. */
export class AdminConflictError extends AdminInputError {
  override readonly status = 409;
  override readonly code = 'conflict';
}
