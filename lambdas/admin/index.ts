import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { AdminInputError } from '#domain/inputs';
import type { Deps } from '#platform/deps';
import { ApiError } from '#contract/errors';
import { isId } from '#contract/ids';
import { errorResponse, jsonResponse, validatedQuery, type HttpResponse } from '#platform/http';
import { parseJsonBody } from '#platform/json-body';
import { count, observability } from '#platform/observability';
import { operations } from './operations.js';
import { ADMIN_ROUTES, resolveAdminPath, type AdminRoute } from './routes.js';

/**
 * The admin HTTP API: apps, destinations, menu publishing and dead letters,
 * the same domain functions the admin CLI runs. Who may call it is decided
 * before this runs (IAM on every method in AWS, the admin key locally), so it
 * only routes, validates and maps the domain's refusals to statuses.
 */
export function createHandler(deps: Deps) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(observability(deps))
    .handler(async (event) => {
      const requestId = event.requestContext.requestId;
      let operation = 'unmatched';
      let response: HttpResponse;
      try {
        const { route, params } = resolve(event);
        operation = route.operation;
        response = await run(deps, event, route, params);
      } catch (err) {
        response = errorResponse(refusalOf(err, deps, requestId), requestId);
      }
      count(deps, response.statusCode >= 500 ? 'AdminServerErrors' : response.statusCode >= 400 ? 'AdminRefused' : 'AdminRequests');
      // Never the body: created apps and destinations carry their secret in it.
      deps.logger.info('admin request', { requestId, operation, status: response.statusCode, caller: event.requestContext.identity?.userArn ?? null });
      return { ...response, headers: { ...response.headers, 'X-Request-Id': requestId } };
    });
}

/** API Gateway names the matched template; the local gateway does the same for routes it knows. */
function resolve(event: APIGatewayProxyEvent): { route: AdminRoute; params: Record<string, string> } {
  const byTemplate = ADMIN_ROUTES.find((r) => r.path === event.resource && r.method === event.httpMethod);
  if (byTemplate) return { route: byTemplate, params: (event.pathParameters ?? {}) as Record<string, string> };
  const resolution = resolveAdminPath(event.httpMethod, event.path);
  if (resolution && 'match' in resolution) return resolution.match;
  if (resolution) throw new ApiError('method_not_allowed', `Use ${resolution.allowed.join(' or ')} on this resource.`, { Allow: resolution.allowed.join(', ') });
  throw new ApiError('not_found', 'No admin resource exists at this path.');
}

async function run(deps: Deps, event: APIGatewayProxyEvent, route: AdminRoute, params: Record<string, string>): Promise<HttpResponse> {
  // Every admin path parameter is an id; one that breaks the id rule names nothing.
  if (!Object.values(params).every(isId)) throw new ApiError('not_found', 'No admin resource exists at this path.');
  const query = route.query ? validatedQuery(event, route.query) : {};
  // Routes without a body schema take no body at all.
  const body = route.body ? parseJsonBody(event, route.body, route.maxBodyBytes) : refuseBody(event);
  const document = await operations[route.operation as keyof typeof operations]({ params, query, body, now: deps.clock.now() }, deps);
  if (route.status === 204) return { statusCode: 204, headers: { 'Cache-Control': 'no-store' }, body: '' };
  return jsonResponse(route.status, document);
}

function refuseBody(event: APIGatewayProxyEvent): undefined {
  if (event.body) throw new ApiError('invalid_request', 'This request takes no body.');
  return undefined;
}

/** The domain's refusals carry their status; anything unexpected is logged and answered without detail. */
function refusalOf(err: unknown, deps: Deps, requestId: string): Parameters<typeof errorResponse>[0] {
  if (err instanceof ApiError) return err;
  if (err instanceof AdminInputError) return { code: err.code, status: err.status, message: err.message, headers: {} };
  deps.logger.error('admin request failed', { requestId, error: err as Error });
  return new ApiError('internal_error');
}
