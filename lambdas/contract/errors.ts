/**
 * One error shape for every non-success /v1 response. `code` is stable and
 * documented; `message` is for humans and may change.
 */
export const ERRORS = {
  invalid_request: { status: 400, message: 'The request is malformed.' },
  invalid_token: { status: 401, message: 'The access token is missing or invalid.' },
  token_expired: { status: 403, message: 'The access token has expired.' },
  token_revoked: { status: 403, message: 'The application behind this token has been revoked.' },
  application_expired: { status: 403, message: 'The application behind this token has expired.' },
  insufficient_scope: { status: 403, message: 'The token lacks the scope this resource requires.' },
  group_not_allowed: { status: 403, message: 'The token does not cover this group.' },
  location_not_allowed: { status: 403, message: 'The token does not cover this location.' },
  forbidden: { status: 403, message: 'The request is not allowed.' },
  module_not_enabled: { status: 403, message: 'The module is not enabled for this location.' },
  not_found: { status: 404, message: 'The requested resource was not found.' },
  method_not_allowed: { status: 405, message: 'The method is not allowed on this resource.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, message: 'The request body has an unsupported content type.' },
  idempotency_key_reused: { status: 422, message: 'This Idempotency-Key was already used with a different request.' },
  rate_limited: { status: 429, message: 'The application rate limit is exceeded.' },
  internal_error: { status: 500, message: 'An unexpected error occurred.' },
  service_unavailable: { status: 503, message: 'The service is busy; retry after the time given.' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? ERRORS[code].message);
    this.status = ERRORS[code].status;
  }
}
