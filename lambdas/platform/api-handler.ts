import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { authorize, type AuthContext } from './auth.js';
import type { Location } from '#data/locations';
import type { Deps } from './deps.js';
import { ApiError } from '#contract/errors';
import { isId } from '#contract/ids';
import { baseUrlOf, errorResponse, header, validated, validatedQuery, type HttpResponse } from './http.js';
import { count, observability } from './observability.js';
import { ID_PARAMS, resolvePath, routeByTemplate, routesOf, type Family, type Route } from '#contract/routes';

/** What an operation receives: the resolved route, validated input and the caller's identity. */
export type ApiRequest = {
  event: APIGatewayProxyEvent;
  route: Route;
  params: Record<string, string>;
  query: Record<string, string>;
  requestId: string;
  /** Base for absolute URLs in responses. */
  baseUrl: string;
  /** The request's instant, read once from the injected clock. */
  now: number;
  auth: AuthContext | null;
  location: Location | null;
};

export type Operation = (req: ApiRequest, deps: Deps) => Promise<HttpResponse>;
export type Operations = Record<string, Operation>;

type ApiContext = Context & { api?: ApiRequest; extraHeaders?: Record<string, string>; startedAt?: number };
type ApiMiddleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext>;

/**
 * The fixed chain every /v1 family runs: tracer, metrics, logger → responses
 * (error shape, shared headers, access log, request counts) → route + auth +
 * rate limit → operation.
 */
export function apiHandler(family: Family, operations: Operations, deps: Deps) {
  for (const route of routesOf(family)) {
    if (!operations[route.operation]) throw new Error(`family ${family} lacks operation ${route.operation}`);
  }
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext>()
    .use(observability(deps))
    .use(responses(deps))
    .use(routeAndAuthorize(family, deps))
    .handler(async (_event, context) => {
      const api = context.api!;
      return operations[api.route.operation]!(api, deps);
    });
}

function responses(deps: Deps): ApiMiddleware {
  const finish = (request: { event: APIGatewayProxyEvent; context: ApiContext; response: APIGatewayProxyResult | null }) => {
    const response = request.response!;
    const requestId = request.event.requestContext.requestId;
    response.headers = { ...request.context.extraHeaders, ...response.headers, 'X-Request-Id': requestId };
    const operation = request.context.api?.route.operation ?? 'unmatched';
    countRequest(deps, operation, response.statusCode);
    deps.logger.info('request', {
      requestId,
      operation,
      status: response.statusCode,
      clientId: request.context.api?.auth?.app.clientId,
      latencyMs: deps.clock.now() - (request.context.startedAt ?? deps.clock.now()),
    });
  };
  return {
    before: (request) => {
      request.context.startedAt = deps.clock.now();
    },
    after: finish,
    onError: (request) => {
      const err = request.error;
      const requestId = request.event.requestContext.requestId;
      if (!(err instanceof ApiError)) {
        deps.logger.error('unhandled error', { requestId, error: err?.name, message: err?.message, stack: err?.stack });
      }
      request.response = errorResponse(err instanceof ApiError ? err : new ApiError('internal_error'), requestId);
      finish(request);
    },
  };
}

/** One request in the service's counts; the operation rides along as EMF metadata, not as a dimension. */
function countRequest(deps: Deps, operation: string, status: number) {
  count(deps, 'Requests');
  if (status === 429) count(deps, 'RateLimited');
  if (status >= 500) count(deps, 'ServerErrors');
  else if (status >= 400) count(deps, 'ClientErrors');
  deps.metrics?.addMetadata('operation', operation);
}

function routeAndAuthorize(family: Family, deps: Deps): ApiMiddleware {
  return {
    before: async ({ event, context }) => {
      const now = deps.clock.now();
      const { route, params } = resolve(event, family);
      // An id that breaks the id rule names nothing: 404 like an unknown path, before any credential or key is read.
      if (!ID_PARAMS.every((name) => params[name] === undefined || isId(params[name]))) {
        throw new ApiError('not_found', 'No resource exists at this path.');
      }
      const api: ApiRequest = {
        event,
        route,
        params,
        query: {},
        requestId: event.requestContext.requestId,
        baseUrl: baseUrlOf(event, deps.config),
        now,
        auth: null,
        location: null,
      };
      context.api = api;
      if (route.scope !== null) {
        const result = await authorize(deps, route, params, header(event, 'authorization'), now);
        api.auth = result.auth;
        api.location = result.location;
        context.extraHeaders = result.rateHeaders;
      }
      // Input is judged after authorization, so a caller without access learns nothing from a 400.
      if (route.query) api.query = validatedQuery(event, route.query);
      if (route.params) api.params = { ...params, ...validated(route.params, params, 'Path parameter') };
    },
  };
}

/**
 * API Gateway names the matched route template (payload 1.0 `resource`). The
 * `$default` route, which catches every other path and method, hands over the
 * whole path, already percent-decoded; it is resolved with the same table.
 */
function resolve(event: APIGatewayProxyEvent, family: Family): { route: Route; params: Record<string, string> } {
  const byTemplate = routeByTemplate(event.httpMethod, event.resource);
  const resolution = byTemplate
    ? { match: { route: byTemplate, params: (event.pathParameters ?? {}) as Record<string, string> } }
    : resolvePath(event.httpMethod, event.path);
  // A route of another family never runs here: to this function it does not exist.
  if (resolution && 'match' in resolution && resolution.match.route.family === family) return resolution.match;
  if (resolution && 'allowed' in resolution) {
    throw new ApiError('method_not_allowed', `Use ${resolution.allowed.join(' or ')} on this resource.`, { Allow: resolution.allowed.join(', ') });
  }
  throw new ApiError('not_found', 'No resource exists at this path.');
}
