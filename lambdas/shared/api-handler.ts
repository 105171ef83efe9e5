import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { authorize, type AuthContext } from './auth.js';
import type { Location } from './data/locations.js';
import type { Deps } from './deps.js';
import { ApiError } from './errors.js';
import { baseUrlOf, errorResponse, header, validated, validatedQuery, type HttpResponse } from './http.js';
import { count, observability } from './observability.js';
import { methodsOf, resolvePath, routeByTemplate, routesOf, type Family, type Route } from './routes.js';

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
 * API Gateway hands over the matched template (for the per-resource `ANY`
 * method too). The root catch-all hands over the path relative to the API,
 * so a custom domain's base path does not matter.
 */
function resolve(event: APIGatewayProxyEvent, family: Family): { route: Route; params: Record<string, string> } {
  let match: { route: Route; params: Record<string, string> } | null = null;
  let allowed: string[] = [];
  if (event.resource === '/{proxy+}') {
    const resolution = resolvePath(event.httpMethod, `/${event.pathParameters?.proxy ?? ''}`);
    if (resolution && 'match' in resolution) match = resolution.match;
    else if (resolution) allowed = resolution.allowed;
  } else {
    const route = routeByTemplate(event.httpMethod, event.resource);
    if (route) match = { route, params: (event.pathParameters ?? {}) as Record<string, string> };
    else allowed = methodsOf(event.resource);
  }
  // A route of another family never runs here: to this function it does not exist.
  if (match?.route.family === family) return match;
  if (!match && allowed.length) {
    throw new ApiError('method_not_allowed', `Use ${allowed.join(' or ')} on this resource.`, { Allow: allowed.join(', ') });
  }
  throw new ApiError('not_found', 'No resource exists at this path.');
}

