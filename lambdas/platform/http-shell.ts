import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { ApiError } from '#contract/errors';
import type { Deps } from './deps.js';
import { negotiated } from './compression.js';
import { errorResponse } from './http.js';
import { ACCESS_LINE_MESSAGE, observability } from './observability.js';
import { edgeOnly, forgetOriginSecret, ORIGIN_REFUSAL, originOf } from './origin.js';
import type { Resolver, Routable } from './path-resolver.js';

/** The three HTTP APIs of the service; each function serves one, named in its logs and metrics. */
export type HttpApi = 'v1' | 'token' | 'admin';

/** What the steps after the shell tell it about a request, for the access log. */
export type ShellContext = Context & {
  /** The route's operation, once resolved. */
  operation?: string;
  /** Who called: the application's client id (/v1), the IAM principal (admin); absent when unknown. Never a secret. */
  caller?: string | null;
  /** Headers every answer carries, success or refusal (the rate-limit headers). */
  extraHeaders?: Record<string, string>;
  startedAt?: number;
  /** The caller's address (origin.ts, originOf): the edge's viewer address, or the connection's source. */
  ip?: string;
};

/** A refusal an API answers with its own status, code and message (the admin API's domain errors). */
export type Refusal = Pick<ApiError, 'status' | 'message' | 'headers'> & { code: string };

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

function responses(api: HttpApi, deps: Deps, { refusalOf }: ShellOptions): ShellMiddleware {
  const finish = (request: { event: APIGatewayProxyEvent; context: ShellContext; response: APIGatewayProxyResult | null }) => {
    const { context } = request;
    const requestId = request.event.requestContext.requestId;
    const response = negotiated(request.event, request.response!);
    response.headers = { ...context.extraHeaders, ...response.headers, 'X-Request-Id': requestId };
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
    before: ({ event, context }) => {
      // Nothing of an earlier invocation's request may leak into this one's log.
      const origin = originOf(event, deps.config);
      Object.assign(context, { operation: undefined, caller: null, extraHeaders: undefined, startedAt: deps.clock.now(), ip: origin.ip });
      // With an edge, /v1 and the token endpoint answer only what came through it: refused before routing and
      // authentication, so a direct caller learns nothing of routes, tokens or data. The admin API stays reachable
      // directly: IAM signs its requests for the API's own host and the console's distribution fronts it (docs/decisions/edge.md).
      const refused = api !== 'admin' && edgeOnly(deps.config) && !origin.fromEdge;
      forgetOriginSecret(event);
      if (refused) throw new ApiError('forbidden', ORIGIN_REFUSAL);
    },
    after: finish,
    onError: (request) => {
      const err = request.error;
      const requestId = request.event.requestContext.requestId;
      const refusal = err instanceof ApiError ? err : (refusalOf?.(err) ?? null);
      if (!refusal) deps.logger.error('unhandled error', { requestId, error: err?.name, message: err?.message, stack: err?.stack });
      request.response = errorResponse(refusal ?? new ApiError('internal_error'), requestId);
      finish(request);
    },
  };
}

/**
 * The route of a request: API Gateway names the matched template (payload
 * 1.0 `resource`); a catch-all route hands over the whole path, already
 * percent-decoded, resolved with the same table. 405 with Allow when only
 * the method is wrong, 404 when nothing has the path.
 */
export function routeOfEvent<R extends Routable>(
  event: APIGatewayProxyEvent,
  routes: readonly R[],
  resolve: Resolver<R>,
  notFound: string,
): { route: R; params: Record<string, string> } {
  const byTemplate = routes.find((r) => r.method === event.httpMethod && r.path === event.resource);
  if (byTemplate) return { route: byTemplate, params: (event.pathParameters ?? {}) as Record<string, string> };
  const resolution = resolve(event.httpMethod, event.path);
  if (resolution && 'match' in resolution) return resolution.match;
  if (resolution) {
    throw new ApiError('method_not_allowed', `Use ${resolution.allowed.join(' or ')} on this resource.`, { Allow: resolution.allowed.join(', ') });
  }
  throw new ApiError('not_found', notFound);
}
