import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Config } from './config.js';
import { ApiError } from '#contract/errors';
import { AdminInputError } from '#contract/validation';
import { isThrottle } from '#data/store';
import { constants, gzipSync } from 'node:zlib';
import type { Deps } from './deps.js';
import type { OriginSecrets } from './origin-secret.js';
import { ACCESS_LINE_MESSAGE, observability } from './observability.js';

/**
 * HTTP for every HTTP function: responses and the one error shape; then what the shell applies
 * to each of them (compression, the edge check), and the shell itself (httpShell), first of every chain.
 */

export type HttpResponse = APIGatewayProxyResult & { headers: Record<string, string> };

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * On every answer of every HTTP function, and on the local gateway's own (the edge adds it in AWS to API Gateway's):
 * a browser takes a body as its declared type only, so a JSON error that echoes input never runs as a page or script.
 */
export const NO_SNIFF = { 'X-Content-Type-Options': 'nosniff' } as const;

export function jsonResponse(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return jsonTextResponse(statusCode, JSON.stringify(body), headers);
}

/** A JSON body serialised already (the OpenAPI artefact), with jsonResponse's headers. */
export function jsonTextResponse(statusCode: number, body: string, headers: Record<string, string> = {}): HttpResponse {
  return { statusCode, headers: { 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store', ...headers }, body };
}

/** Case-insensitive header lookup; API Gateway keeps the client's casing. */
export function header(event: Pick<APIGatewayProxyEvent, 'headers'>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return Object.entries(event.headers ?? {}).find(([key, value]) => key.toLowerCase() === wanted && value !== undefined)?.[1];
}

/** The raw request body as bytes-as-text, decoding API Gateway's base64 form. */
export function bodyText(event: APIGatewayProxyEvent): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

export function bodyBytes(event: APIGatewayProxyEvent): number {
  if (!event.body) return 0;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').length : Buffer.byteLength(event.body, 'utf8');
}

/**
 * The base URL of absolute URLs in responses: the stage's configured public base URL (its custom domain), else
 * the API's own domain as API Gateway reports it in the event (`requestContext.domainName`, with the stage prefix
 * of the default execute-api host), never the request's Host header, which the client chooses: a URL built from
 * it could point a cached document's readers anywhere. The scheme is `X-Forwarded-Proto`, which API Gateway (and
 * the local gateway) set themselves over any a client sent; only `http` and `https` are taken.
 */
export function baseUrlOf(event: APIGatewayProxyEvent, config: Config): string {
  if (config.publicBaseUrl) return config.publicBaseUrl;
  const proto = header(event, 'x-forwarded-proto') === 'http' ? 'http' : 'https';
  const host = event.requestContext.domainName ?? 'localhost';
  const fullPath = event.requestContext.path ?? event.path;
  const prefix = fullPath.endsWith(event.path) ? fullPath.slice(0, fullPath.length - event.path.length) : '';
  return `${proto}://${host}${prefix}`;
}

/**
 * The request headers `baseUrlOf` reads, for the `Vary` of a cacheable response that carries an absolute URL: none
 * with a configured base URL; else the gateway-set scheme header.
 */
export function baseUrlVary(config: Config): Record<string, string> {
  return config.publicBaseUrl ? {} : { Vary: 'X-Forwarded-Proto' };
}

/**
 * Responses in gzip for clients that ask for it (Accept-Encoding), in API
 * Gateway's binary form: a base64 body with isBase64Encoded, which the
 * gateway decodes before sending. JSON compresses 5–20×, so large lists and
 * the kitchen's buckets cross the internet (and Lambda's 6 MB response
 * limit) several times smaller. docs/decisions/compression.md says why.
 */

/** Smaller bodies go as they are: gzip's framing and the CPU would cost more than they save. */
export const MIN_COMPRESSED_BYTES = 1024;

/** RFC 9110 12.5.3: gzip (or `*`) listed with a non-zero weight. */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  return acceptEncoding.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * The response as the client should get it: gzipped when it accepts that
 * and the body is worth it. For such a client an entity tag is weak, big
 * body or small and 304 alike, so its validator never changes with the size
 * of the body: another coding is another representation (RFC 9110 8.8.1),
 * and the weak form still matches a conditional read (contract 4.3).
 */
export function negotiated(event: APIGatewayProxyEvent, response: APIGatewayProxyResult): APIGatewayProxyResult {
  const headers = { ...((response.headers ?? {}) as Record<string, string>) };
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'content-encoding') || response.isBase64Encoded) return response;
  const gzip = acceptsGzip(header(event, 'accept-encoding'));
  const large = Buffer.byteLength(response.body ?? '', 'utf8') >= MIN_COMPRESSED_BYTES;
  if (gzip && headers.ETag && !headers.ETag.startsWith('W/')) headers.ETag = `W/${headers.ETag}`;
  // The representation depends on Accept-Encoding, compressed or not.
  if (headers.ETag || large) headers.Vary = headers.Vary ? `${headers.Vary}, Accept-Encoding` : 'Accept-Encoding';
  if (!gzip || !large) return { ...response, headers };
  return {
    ...response,
    // Level 1: most of the size for a fraction of the default level's CPU.
    body: gzipSync(response.body, { level: constants.Z_BEST_SPEED }).toString('base64'),
    isBase64Encoded: true,
    headers: { ...headers, 'Content-Encoding': 'gzip' },
  };
}

/**
 * The edge (lib/constructs/edge.ts, docs/decisions/edge.md): CloudFront adds the origin secret as this header to
 * every request it sends to the HTTP API, overwriting one a client sent, and a viewer-request CloudFront Function
 * sets the viewer's address in the second. With origin secrets configured (deps.originSecrets), a request without
 * one did not come through the edge and is refused; without them (dev, staging, `npm start` by default) nothing is checked.
 */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';
export const VIEWER_ADDRESS_HEADER = 'x-viewer-address';

/** What a request that bypassed the edge is told (403 `forbidden`, before routing and authentication). */
export const ORIGIN_REFUSAL = 'Call the API through its published URL.';

/**
 * One check of a request's origin: whether it came through the edge (origin secrets are configured and the header
 * carries one), and the caller's address: the edge's `x-viewer-address` then, else the connection's source
 * address as API Gateway reports it. A client's own `x-viewer-address` is never believed: without the secret it
 * is ignored, and through the edge the CloudFront Function has overwritten it.
 */
export async function originOf(
  event: Pick<APIGatewayProxyEvent, 'headers' | 'requestContext'>,
  secrets: OriginSecrets | undefined,
): Promise<{ fromEdge: boolean; ip: string | undefined }> {
  const source = event.requestContext?.identity?.sourceIp ?? undefined;
  const sent = header(event, ORIGIN_VERIFY_HEADER);
  const edge = secrets !== undefined && sent !== undefined && (await secrets.accepts(sent));
  return { fromEdge: edge, ip: (edge && header(event, VIEWER_ADDRESS_HEADER)) || source };
}

/**
 * Removes the secret from the event once it has been checked, so nothing after the shell (an operation, an
 * error log, a future header echo) can ever see or repeat it.
 */
export function forgetOriginSecret(event: Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'>): void {
  for (const headers of [event.headers, event.multiValueHeaders]) {
    if (!headers) continue;
    for (const name of Object.keys(headers)) if (name.toLowerCase() === ORIGIN_VERIFY_HEADER) delete headers[name];
  }
}

/** The HTTP APIs of the service; each function serves one, named in its logs and metrics. */
export type HttpApi = 'v1' | 'token' | 'admin' | 'producer';

/** What the steps after the shell tell it about a request, for the access log. */
export type ShellContext = Context & {
  /** The route's operation, once resolved. */
  operation?: string;
  /** Who called: the application's client id (/v1), the IAM principal (admin); absent when unknown. Never a secret. */
  caller?: string | null;
  /** Headers every answer carries, success or refusal (the rate-limit headers). */
  extraHeaders?: Record<string, string>;
  startedAt?: number;
  /** The caller's address (originOf below): the edge's viewer address, or the connection's source. */
  ip?: string;
};

/** A refusal an API answers with its own status, code and message (the admin API's domain errors). */
export type Refusal = Pick<ApiError, 'status' | 'message' | 'headers'> & { code: string };

/** The input rules' refusals (contract/validation.ts), each with its own status and code: the admin and producer APIs' refusalOf. */
export const inputRefusal = (err: unknown): Refusal | null =>
  err instanceof AdminInputError ? { code: err.code, status: err.status, message: err.message, headers: {} } : null;

type ShellOptions = {
  /** Maps what an API's steps throw, besides ApiError, to its refusal; null leaves it unexpected. */
  refusalOf?: (err: unknown) => Refusal | null;
};

type ShellMiddleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ShellContext>;

/**
 * The one HTTP shell of `/v1`, token and admin: metrics, logger →
 * request id on every answer, the error shape for anything thrown, one
 * access-log line and the same counts for every request. What differs per
 * API (routing, authentication) runs after it.
 */
export function httpShell(api: HttpApi, deps: Deps, options: ShellOptions = {}) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ShellContext>()
    .use(observability(deps))
    .use(responses(api, deps, options));
}

/** Seconds a throttled caller is asked to wait: DynamoDB's throttles are per second, and the SDK has already retried. */
const THROTTLED_RETRY_AFTER_SECONDS = 1;

/** A request DynamoDB throttled past the SDK's retries: 503 with Retry-After, never a 500 (docs/decisions/throttled-reads.md). */
const throttled = (err: unknown): ApiError | null =>
  isThrottle(err) ? new ApiError('service_unavailable', undefined, { 'Retry-After': String(THROTTLED_RETRY_AFTER_SECONDS) }) : null;

function responses(api: HttpApi, deps: Deps, { refusalOf }: ShellOptions): ShellMiddleware {
  const finish = (request: { event: APIGatewayProxyEvent; context: ShellContext; response: APIGatewayProxyResult | null }) => {
    const { context } = request;
    const requestId = request.event.requestContext.requestId;
    const response = negotiated(request.event, request.response!);
    response.headers = { ...context.extraHeaders, ...response.headers, ...NO_SNIFF, 'X-Request-Id': requestId };
    request.response = response;
    const operation = context.operation ?? 'unmatched';
    // Never a body: token responses and created apps and destinations carry secrets.
    // The HTTP counts are taken from this line by metric filters (observability.ts, HTTP_COUNTS).
    deps.logger.info(ACCESS_LINE_MESSAGE, {
      stage: deps.config.stage,
      requestId,
      api,
      operation,
      status: response.statusCode,
      caller: context.caller ?? undefined,
      ip: context.ip,
      latencyMs: deps.clock.now() - (context.startedAt ?? deps.clock.now()),
    });
  };
  return {
    before: async ({ event, context }) => {
      // Nothing of an earlier invocation's request may leak into this one's log.
      Object.assign(context, { operation: undefined, caller: null, extraHeaders: undefined, startedAt: deps.clock.now() });
      // With an edge, /v1 and the token endpoint answer only what came through it: refused before routing and
      // authentication, so a direct caller learns nothing of routes, tokens or data. The admin API is not told the
      // secret and stays reachable directly: IAM signs its requests for the API's own host and the console's
      // distribution fronts it (docs/decisions/edge.md).
      const secrets = api === 'admin' ? undefined : deps.originSecrets;
      const origin = await originOf(event, secrets).finally(() => forgetOriginSecret(event));
      context.ip = origin.ip;
      if (secrets && !origin.fromEdge) throw new ApiError('forbidden', ORIGIN_REFUSAL);
    },
    after: finish,
    onError: (request) => {
      const err = request.error;
      const requestId = request.event.requestContext.requestId;
      const refusal = err instanceof ApiError ? err : (refusalOf?.(err) ?? throttled(err));
      if (!refusal) deps.logger.error('unhandled error', { requestId, error: err?.name, message: err?.message, stack: err?.stack });
      else if (refusal.code === 'service_unavailable') deps.logger.warn('table throttled the request', { requestId, error: err?.name });
      // The one error shape; the admin API passes its own codes (e.g. 409 conflict) in the same form.
      const { code, message, status, headers } = refusal ?? new ApiError('internal_error');
      request.response = jsonResponse(status, { ok: false, version: 'v1', error: { code, message, status, requestId } }, headers);
      finish(request);
    },
  };
}
