import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { AUTH_REPOSITORIES, type AuthContext, authorize } from './auth.js';
import type { Location } from '#data/locations';
import { onlyRepositories, type Read } from '#data/store';
import { rateLeases } from '#data/rate-counters';
import type { Factories, Store } from '#data/repositories';
import type { Config } from './config.js';
import { defaultDeps, type Deps } from './deps.js';
import { ApiError } from '#contract/errors';
import { isId } from '#contract/ids';
import { baseUrlOf, header, type HttpResponse, httpShell, jsonResponse, type ShellContext } from './http.js';
import { validatedParams, validatedQuery } from './input.js';
import { type Family, ID_PARAMS, type LocationPath, type Route, type RouteFacts, withFacts } from '#contract/routes';

/** What an operation receives: the resolved route, validated input and the request's instant. */
export type ApiRequest = {
  event: APIGatewayProxyEvent;
  route: Route & RouteFacts;
  params: Record<string, string>;
  query: Record<string, string>;
  requestId: string;
  /** Base for absolute URLs in responses. */
  baseUrl: string;
  /** The request's instant, read once from the injected clock. */
  now: number;
};
/** A route with a scope: the caller's identity, authorized. */
export type GroupRequest = ApiRequest & { auth: AuthContext };
/** A route below a location: also the location, read while authorizing. */
export type LocationRequest = GroupRequest & { location: Location };
/** The request a route's operation receives, by its row: no scope, a group's path, or a location's. */
type RequestOf<R extends Route> = R['scope'] extends null ? ApiRequest : R['path'] extends LocationPath ? LocationRequest : GroupRequest;

/**
 * What is known of a request before it is authorized: enough to name what its operation will read. The path and
 * query have passed the route's rules by then.
 */
export type ReadHints = Pick<ApiRequest, 'params' | 'query' | 'now'> & {
  /** The path location's time zone as last seen by this process; undefined until then. */
  timezone: string | undefined;
  /** A request header (a conditional read reads less). */
  header(name: string): string | undefined;
};

/**
 * One route's operation: `run` answers the request; `reads` names the items
 * and Query pages `run` will read (its path parameters are valid ids by
 * then), read in the same round trip as the credential, so such a read
 * costs one round trip in all. A guess that turns out wrong (a location's
 * time zone changed) costs only its own read: `run` reads what it needs and
 * misses the guess.
 */
export type Operation<S extends Store = Store, R extends ApiRequest = ApiRequest> = {
  reads?: (hints: ReadHints) => Read[];
  run: (req: R, deps: Deps<S>) => Promise<HttpResponse>;
};
/** A family's operations, one per route of its table, each typed by its route's request. */
export type Operations<Routes extends readonly Route[], S extends Store = Store> = {
  [R in Routes[number] as R['operation']]: Operation<S, RequestOf<R>>;
};
/** Any family's operations, as the pipeline runs them (it builds each route's request: RequestOf). */
type AnyOperations<S extends Store> = Record<string, Operation<S, never>>;

/** The request as the pipeline builds it: auth and location set once authorization passed, for the routes that have them. */
type PipelineRequest = ApiRequest & { auth?: AuthContext; location?: Location };
type ApiContext = ShellContext & { api?: PipelineRequest; store?: Store };

/** The repositories a /v1 function builds: authorization's and those its family names. */
export function v1Repositories(own: Factories = {}): Factories {
  return { ...AUTH_REPOSITORIES, ...own };
}

/**
 * A /v1 family's function over its own repositories (authorization's and those it names: all its bundle carries):
 * `createHandler` for any deps (tests, the local runtime), and `handler`, the Lambda entry (lib/functions.ts), over
 * `lambdaDeps` (default: DynamoDB only).
 */
export function v1Function<S extends Store>(
  family: Family,
  operations: AnyOperations<S>,
  routes: readonly Route[],
  own?: Factories,
  lambdaDeps: (repositories: Factories) => Deps<S> = defaultDeps<S>,
) {
  const repositories = v1Repositories(own);
  const createHandler = (deps: Deps<S>) => apiHandler(family, operations, deps, { routes, repositories });
  return { repositories, createHandler, handler: createHandler(lambdaDeps(repositories)) };
}

/**
 * A /v1 family's function: the HTTP shell → route + auth + rate limit → operation, over its own repositories only.
 * Beside its operations a family names the routes it resolves (its own list; every route for the catch-all family)
 * and its repositories (v1Repositories).
 */
export function apiHandler<S extends Store>(
  family: Family,
  operations: AnyOperations<S>,
  allDeps: Deps<S>,
  wiring: { routes: readonly Route[]; repositories: Factories },
) {
  const routes = wiring.routes.map(withFacts);
  for (const route of routes.filter((r) => r.family === family)) {
    if (!operations[route.operation]) throw new Error(`family ${family} lacks operation ${route.operation}`);
  }
  const deps = { ...allDeps, store: onlyRepositories(allDeps.store, wiring.repositories) };
  // Leased quota lives in the function instance: one book per handler, as Lambda builds one per instance.
  const leases = rateLeases(deps.store.rateCounters);
  const resolvePath = pathResolver(routes);
  const legacy = legacyHeaders(deps.config);
  const routeAndAuthorize: MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext> = {
    before: async ({ event, context }) => {
      Object.assign(context, { api: undefined, store: undefined });
      const now = deps.clock.now();
      const { route, params } = routeOfEvent(event, routes, resolvePath, NOT_FOUND);
      // A route of another family never runs here: to this function it does not exist.
      if (route.family !== family) throw new ApiError('not_found', NOT_FOUND);
      context.operation = route.operation;
      // An id that breaks the id rule names nothing: 404 like an unknown path, before any credential or key is read.
      if (!ID_PARAMS.every((name) => params[name] === undefined || isId(params[name]))) {
        throw new ApiError('not_found', NOT_FOUND);
      }
      const api: PipelineRequest = {
        event,
        route,
        params,
        query: {},
        requestId: event.requestContext.requestId,
        baseUrl: baseUrlOf(event, deps.config),
        now,
      };
      context.api = api;
      const input = judgedInput(route, event, params);
      if (route.scope !== null) {
        // What the operation declared it will read, for input that keeps the rules; a hint, so one that cannot be worked out reads nothing ahead.
        let ahead: Read[] = [];
        try {
          const timezone = TIME_ZONES.get(`${params.group_id}/${params.location_id}`);
          if (!('error' in input))
            ahead = operations[route.operation]!.reads?.({ ...input, now, timezone, header: (name) => header(event, name) }) ?? [];
        } catch {
          // Nothing is read ahead.
        }
        const result = await authorize(deps, leases, route, params, header(event, 'authorization'), now, ahead);
        api.auth = result.auth;
        if (result.location) {
          if (TIME_ZONES.size >= MAX_TIME_ZONES) TIME_ZONES.clear();
          TIME_ZONES.set(`${result.location.groupId}/${result.location.id}`, result.location.timezone);
          api.location = result.location;
        }
        context.caller = result.auth.app.clientId;
        context.extraHeaders = result.rateHeaders;
        context.store = result.store;
      }
      // The verdict on the input is given after authorization, so a caller without access learns nothing from a 400.
      if ('error' in input) throw input.error;
      api.query = input.query;
      api.params = input.params;
    },
  };
  return httpShell('v1', deps)
    .use(routeAndAuthorize)
    .handler(async (_event, context: ApiContext) => {
      const api = context.api!;
      // An authorized operation reads through the store its authorization filled.
      const response = await operations[api.route.operation]!.run(
        api as never,
        context.store ? { ...deps, store: context.store as S } : deps,
      );
      return api.route.legacy ? { ...response, headers: { ...response.headers, ...legacy } } : response;
    });
}

/**
 * A legacy route's notice (contract 9, whose dates are "not shown": each stage sets them, and without them nothing
 * is sent): `Deprecation` as an RFC 9745 date (`@` and Unix seconds), `Sunset` as an RFC 8594 HTTP-date.
 */
function legacyHeaders({ legacyDeprecatedAt, legacySunsetAt }: Config) {
  return {
    ...(legacyDeprecatedAt ? { Deprecation: `@${Math.floor(Date.parse(legacyDeprecatedAt) / 1000)}` } : {}),
    ...(legacySunsetAt ? { Sunset: new Date(legacySunsetAt).toUTCString() } : {}),
  };
}

const NOT_FOUND = 'No resource exists at this path.';

/** The request's path parameters and query, judged once: the verdict picks what is read ahead, and is given after authorization. */
function judgedInput(route: Route, event: APIGatewayProxyEvent, params: Record<string, string>) {
  try {
    return {
      params: route.params ? { ...params, ...validatedParams(route.params, params) } : params,
      query: route.query ? validatedQuery(event, route.query, Object.keys(route.query.entries)) : {},
    };
  } catch (error) {
    return { error };
  }
}

/**
 * Locations' time zones as this process last saw them (`group/location`), so a read keyed by the location's
 * business date can start before the location is read. A hint only picks what to read ahead; answers always use
 * the location read with the request. Bounded: a full map starts again.
 */
const TIME_ZONES = new Map<string, string>();
const MAX_TIME_ZONES = 10_000;

/** What path resolution needs of a route: the /v1 and admin route tables resolve with the same rules. */
type Routable = { method: string; path: string };
type Match<R extends Routable> = { route: R; params: Record<string, string> };
type Resolution<R extends Routable> = { match: Match<R> } | { allowed: string[] } | null;

export type Resolver<R extends Routable> = (method: string, path: string) => Resolution<R>;

/**
 * A resolver for one route table: it maps a concrete path to its route.
 * Literal segments beat parameters at the same depth, as in API Gateway. It
 * returns the allowed methods when only the method is wrong, and null when
 * no route has the path. The path is the one an HTTP API hands a function:
 * already percent-decoded, so parameters are taken as they stand (decoding
 * again would turn `%2525` into `%` and `%252F` into a separator).
 */
export function pathResolver<R extends Routable>(routes: readonly R[]): Resolver<R> {
  const isParam = (segment: string) => segment.startsWith('{');
  const compiled = routes.map((route) => {
    const segments = route.path.split('/').slice(1);
    return { route, segments, rank: segments.map((segment) => (isParam(segment) ? '1' : '0')).join('') };
  });
  return (method, path) => {
    const parts = path.split('/').slice(1);
    const matches = compiled.filter(
      ({ segments }) =>
        segments.length === parts.length && segments.every((segment, i) => (isParam(segment) ? parts[i] !== '' : segment === parts[i])),
    );
    if (matches.length === 0) return null;
    const best = matches.map((m) => m.rank).sort()[0];
    const bestPaths = matches.filter((m) => m.rank === best);
    const hit = bestPaths.find((m) => m.route.method === method);
    if (!hit) return { allowed: [...new Set(bestPaths.map((m) => m.route.method))].sort() };
    const params = hit.segments.flatMap((segment, i) => (isParam(segment) ? [[segment.slice(1, -1), parts[i]!]] : []));
    return { match: { route: hit.route, params: Object.fromEntries(params) as Record<string, string> } };
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
    throw new ApiError('method_not_allowed', `Use ${resolution.allowed.join(' or ')} on this resource.`, {
      Allow: resolution.allowed.join(', '),
    });
  }
  throw new ApiError('not_found', notFound);
}

/** What the envelope names of a /v1 request (an ApiRequest's). */
type Enveloped = { route: RouteFacts; params: Record<string, string>; now: number };

/** The common envelope of contract 2.1 around a resource's data. */
export function envelope(req: Enveloped, data: unknown, resource = req.route.resource) {
  return {
    ok: true as const,
    version: 'v1' as const,
    resource,
    groupId: req.params.group_id!,
    ...(req.route.atLocation ? { locationId: req.params.location_id! } : {}),
    generatedAt: new Date(req.now).toISOString(),
    data,
  };
}

/** A /v1 resource's 200: its data in the envelope. */
export function ok(req: Enveloped, data: unknown, headers: Record<string, string> = {}): HttpResponse {
  return jsonResponse(200, envelope(req, data), headers);
}
