/** The admin's errors, in a module without the input schemas: dead-letters.ts throws them, and the sweeper and deliverer that bundle it must not carry the input schemas. */

/**
 * Thrown for admin input that breaks a rule; nothing has been written when it
 * is thrown. Status and code are what the admin API answers; to the CLI every
 * kind is bad input (exit 2).
 */
export class AdminInputError extends Error {
  readonly status: number = 400;
  readonly code: string = 'invalid_request';
}

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
