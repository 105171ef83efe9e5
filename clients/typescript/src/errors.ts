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
    let body: any = null;
    try {
      body = JSON.parse(await response.text());
    } catch {
      // Not JSON: the status alone describes it.
    }
    const v1 = body && typeof body.error === 'object' ? body.error : undefined;
    const code = v1?.code ?? (typeof body?.error === 'string' ? body.error : `http_${response.status}`);
    const message = v1?.message ?? body?.error_description ?? body?.message ?? `HTTP ${response.status}`;
    const requestId = v1?.requestId ?? response.headers.get('x-request-id') ?? undefined;
    const retryAfter = Number(response.headers.get('retry-after'));
    return new ApiError(response.status, code, message, requestId, response.headers.has('retry-after') && Number.isFinite(retryAfter) ? retryAfter : undefined);
  }
}
