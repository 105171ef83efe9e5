/**
 * A refused request, whatever answered it: a `/v1` error (`{ error: { code, message, requestId } }`), an OAuth error
 * of the token endpoint (`{ error, error_description }`) or the gateway's own `{ message }`.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    /** The contract's stable code (`rate_limited`, `invalid_client`, …), or `http_<status>` when the body has none. */
    readonly code: string,
    message: string,
    /** Finds the request in the service's logs: the body's `requestId`, else the `X-Request-Id` header. */
    readonly requestId: string | undefined,
    /** Seconds the service asked to wait (429), when it said so. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  static async from(response: Response): Promise<ApiError> {
    let body: unknown = null;
    try {
      body = JSON.parse(await response.text());
    } catch {
      // Not JSON: the status alone describes it.
    }
    const fields = isObject(body) ? body : {};
    const v1 = isObject(fields.error) ? fields.error : {};
    const code = stringOf(v1.code) ?? stringOf(fields.error) ?? `http_${response.status}`;
    const message = stringOf(v1.message) ?? stringOf(fields.error_description) ?? stringOf(fields.message) ?? `HTTP ${response.status}`;
    const requestId = stringOf(v1.requestId) ?? response.headers.get('x-request-id') ?? undefined;
    const retryAfter = Number(response.headers.get('retry-after'));
    return new ApiError(
      response.status,
      code,
      message,
      requestId,
      response.headers.has('retry-after') && Number.isFinite(retryAfter) ? retryAfter : undefined,
    );
  }
}

/** A JSON object (arrays included: their named fields are absent). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** A field the body gave as a string; anything else counts as absent. */
function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
