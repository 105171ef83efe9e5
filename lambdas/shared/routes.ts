import type { z } from 'zod';
import { moduleOfScope, type Module, type Scope } from './scopes.js';
import * as discovery from './schemas/discovery.js';
import * as token from './schemas/token.js';

/**
 * The route table, declared once. API Gateway (lib/), the local gateway, each
 * family Lambda's dispatch, the OpenAPI document and the discovery
 * `resources` list are all derived from it.
 */
export type Route = {
  method: 'GET' | 'POST';
  /** API Gateway resource path; `{name}` is a path parameter. */
  path: string;
  /** The Lambda that serves it. */
  family: Family;
  /** Unique name; the family's implementation of the route. */
  operation: string;
  /** Bearer scope required; null for the unauthenticated routes. */
  scope: Scope | null;
  summary: string;
  /** Envelope `data` schema (OpenAPI); the token endpoint documents its own body. */
  data?: z.ZodType;
  query?: z.ZodObject;
};

export const FAMILIES = ['token', 'discovery'] as const;
export type Family = (typeof FAMILIES)[number];

export const ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/oauth/token',
    family: 'token',
    operation: 'issueToken',
    scope: null,
    summary: 'Exchange client credentials for a 24-hour access token',
  },
  {
    method: 'GET',
    path: '/v1/openapi.json',
    family: 'discovery',
    operation: 'openapi',
    scope: null,
    summary: 'This OpenAPI 3.1 document',
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/locations',
    family: 'discovery',
    operation: 'listLocations',
    scope: 'locations:read',
    summary: 'Accessible locations, enabled modules, granted resources and the token block',
    data: discovery.locationsData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/modules',
    family: 'discovery',
    operation: 'groupModules',
    scope: 'locations:read',
    summary: 'Modules of the group and which accessible locations have each enabled',
    data: discovery.groupModulesData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/modules',
    family: 'discovery',
    operation: 'locationModules',
    scope: 'locations:read',
    summary: "A location's modules, whether each is granted, and its granted resources",
    data: discovery.locationModulesData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}',
    family: 'discovery',
    operation: 'locationSummary',
    scope: 'locations:read',
    summary: 'Location summary (the `root` endpoint)',
    data: discovery.locationSummaryData,
  },
];

export const TOKEN_SCHEMAS = token;

const LOCATION_PREFIX = '/v1/{group_id}/{location_id}';

export function isLocationRoute(route: Route): boolean {
  return route.path === LOCATION_PREFIX || route.path.startsWith(`${LOCATION_PREFIX}/`);
}

/** The module a route belongs to, or null for discovery and unauthenticated routes. */
export function moduleOfRoute(route: Route): Module | null {
  return route.scope ? moduleOfScope(route.scope) : null;
}

/** The envelope/discovery resource name: the path below the location (or group), e.g. `shiftq/kitchen`. */
export function resourceName(route: Route): string {
  const below = route.path.replace(/^\/v1\/\{group_id\}(\/\{location_id\})?\/?/, '');
  return below === '' ? 'location' : below;
}

export function routesOf(family: Family): Route[] {
  return ROUTES.filter((r) => r.family === family);
}

type Match = { route: Route; params: Record<string, string> };
export type Resolution = { match: Match } | { allowed: string[] } | null;

const compiled = ROUTES.map((route) => ({ route, segments: route.path.split('/').slice(1) }));

/**
 * Resolves a concrete path to its route. Literal segments beat parameters at
 * the same depth, as in API Gateway. Returns the allowed methods when only the
 * method is wrong, and null when no route has the path.
 */
export function resolvePath(method: string, path: string): Resolution {
  const parts = path.split('/').slice(1);
  const candidates: { route: Route; params: Record<string, string>; rank: string }[] = [];
  for (const { route, segments } of compiled) {
    if (segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let rank = '';
    const ok = segments.every((seg, i) => {
      const part = parts[i]!;
      if (seg.startsWith('{')) {
        if (part === '') return false;
        try {
          params[seg.slice(1, -1)] = decodeURIComponent(part);
        } catch {
          return false;
        }
        rank += '1';
        return true;
      }
      rank += '0';
      return seg === part;
    });
    if (ok) candidates.push({ route, params, rank });
  }
  if (candidates.length === 0) return null;
  const best = candidates.reduce((a, b) => (b.rank < a.rank ? b : a)).rank;
  const bestPaths = candidates.filter((c) => c.rank === best);
  const hit = bestPaths.find((c) => c.route.method === method);
  if (hit) return { match: { route: hit.route, params: hit.params } };
  return { allowed: [...new Set(bestPaths.map((c) => c.route.method))].sort() };
}

/** The methods routed on one API Gateway resource template, sorted. */
export function methodsOf(template: string): string[] {
  return [...new Set(ROUTES.filter((r) => r.path === template).map((r) => r.method))].sort();
}

/** Looks a route up by its API Gateway resource template, as a Lambda behind API Gateway receives it. */
export function routeByTemplate(method: string, template: string): Route | undefined {
  return ROUTES.find((r) => r.method === method && r.path === template);
}
