import type { z } from 'zod';
import { moduleOfScope, type Module, type Scope } from './scopes.js';
import * as discovery from './schemas/discovery.js';
import * as token from './schemas/token.js';
import * as bevq from './schemas/bevq.js';
import * as sportsq from './schemas/sportsq.js';
import * as matriq from './schemas/matriq.js';
import * as campaigns from './schemas/campaigns.js';
import * as orderboard from './schemas/orderboard.js';
import * as shiftq from './schemas/shiftq.js';

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
  /** Path-parameter rules (OpenAPI documents them); a breaking value gets 400, after authorization. */
  params?: z.ZodObject;
  /** Optional JSON request body (OpenAPI requestBody); the operation parses it with parseJsonBody and accepts Idempotency-Key. */
  body?: z.ZodType;
  /** Media types of a route that serves files instead of the JSON envelope. */
  produces?: readonly string[];
  /** Sends an ETag and answers 304 to a matching If-None-Match (OpenAPI documents the 304). */
  conditional?: true;
};

export const FAMILIES = ['token', 'discovery', 'bevq', 'sportsq', 'matriq', 'campaigns', 'orderboard', 'assets', 'shiftq'] as const;
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
  {
    method: 'GET',
    path: '/v1/{group_id}/bevq',
    family: 'bevq',
    operation: 'bevqGroup',
    scope: 'bevq:read',
    summary: 'Beverage-menu availability across the accessible locations of the group',
    data: bevq.bevqGroupData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/bevq',
    family: 'bevq',
    operation: 'bevqLocation',
    scope: 'bevq:read',
    summary: "A location's beverage-menu status and menu endpoint",
    data: bevq.bevqLocationData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/bevq/menu',
    family: 'bevq',
    operation: 'bevqMenu',
    scope: 'bevq:read',
    summary: 'The complete beverage menu (ETag; If-None-Match gives 304 when unchanged)',
    data: bevq.bevqMenuData,
    conditional: true,
  },
  // ───────────── sports programming (2.8) ─────────────
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/sportsq',
    family: 'sportsq',
    operation: 'sportsGuide',
    scope: 'sportsq:read',
    summary: 'Legacy sports guide for one date (default: the current business date); retained for existing integrations',
    data: sportsq.guideData,
    query: sportsq.guideQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/sportsq/provider',
    family: 'sportsq',
    operation: 'sportsProvider',
    scope: 'sportsq:read',
    summary: "The location's sports provider environment and today's provider-availability health",
    data: sportsq.providerData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/sportsq/packages',
    family: 'sportsq',
    operation: 'sportsPackages',
    scope: 'sportsq:read',
    summary: 'Legacy package catalog plus the canonical packages projection',
    data: sportsq.packagesData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/sportsq/{date}',
    family: 'sportsq',
    operation: 'sportsProgramming',
    scope: 'sportsq:read',
    summary: 'Programming for exactly one date (YYYY-MM-DD) with schedule and provider health; never another day',
    data: sportsq.programmingData,
    params: sportsq.programmingDateParams,
  },
  // ───────────── display devices (2.9) ─────────────
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/matriq',
    family: 'matriq',
    operation: 'matriqOverview',
    scope: 'matriq:read',
    summary: 'Display-device overview: device ids, provider count, Auto Scheduler published/running',
    data: matriq.overviewData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/matriq/gateway',
    family: 'matriq',
    operation: 'matriqGateway',
    scope: 'matriq:read',
    summary: "The location's device gateway and its health",
    data: matriq.gatewayData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/matriq/devices',
    family: 'matriq',
    operation: 'matriqDevices',
    scope: 'matriq:read',
    summary: 'Display devices and their health',
    data: matriq.devicesData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/matriq/providerAvailable',
    family: 'matriq',
    operation: 'matriqProviderAvailable',
    scope: 'matriq:read',
    summary: 'Provider availability for the active business date (legacy compatibility shape)',
    data: matriq.providerAvailableData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/providerAvailable',
    family: 'matriq',
    operation: 'providerAvailableAlias',
    scope: 'matriq:read',
    summary: 'Direct alias of matriq/providerAvailable',
    data: matriq.providerAvailableData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/matriq/aiScheduler',
    family: 'matriq',
    operation: 'matriqAiScheduler',
    scope: 'matriq:read',
    summary: 'Auto Scheduler state, the current published draft and the emergency-stop action',
    data: matriq.aiSchedulerData,
  },
  {
    method: 'POST',
    path: '/v1/{group_id}/{location_id}/matriq/aiScheduler/emergency-stop',
    family: 'matriq',
    operation: 'matriqEmergencyStop',
    scope: 'matriq:ai-scheduler:stop',
    summary: 'Queue an emergency stop of the Auto Scheduler (Idempotency-Key supported)',
    data: matriq.emergencyStopData,
    body: matriq.emergencyStopBody,
  },
  // ───────────── campaigns and order board (2.10) ─────────────
  {
    method: 'GET',
    path: '/v1/{group_id}/campaigns',
    family: 'campaigns',
    operation: 'groupCampaigns',
    scope: 'campaigns:read',
    summary: 'Campaigns across the accessible campaign-enabled locations of the group',
    data: campaigns.groupCampaignsData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/campaigns',
    family: 'campaigns',
    operation: 'locationCampaigns',
    scope: 'campaigns:read',
    summary: "A location's campaigns and its display-device status",
    data: campaigns.locationCampaignsData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/orderboard',
    family: 'orderboard',
    operation: 'orderboard',
    scope: 'orderboard:read',
    summary: 'Order-board placeholder (coming soon)',
    data: orderboard.orderboardData,
  },
  // ───────────── public images ─────────────
  {
    method: 'GET',
    path: '/v1/assets/sports-logo/{name}',
    family: 'assets',
    operation: 'sportsLogo',
    scope: null,
    summary: 'A sports logo image (public; long-lived cache, ETag)',
    params: sportsq.sportsLogoParams,
    produces: ['image/svg+xml', 'image/png'],
    conditional: true,
  },
  // ───────────── staff and operations (2.3–2.7) ─────────────
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq',
    family: 'shiftq',
    operation: 'shiftqOverview',
    scope: 'shiftq:read',
    summary: 'Overview: summary counts of the current business date (2.3)',
    data: shiftq.overviewData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/sales',
    family: 'shiftq',
    operation: 'shiftqSales',
    scope: 'shiftq:read',
    summary: 'Sales snapshot of a business date with a same-weekday prior-week compare',
    data: shiftq.salesData,
    query: shiftq.businessDateQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/labor',
    family: 'shiftq',
    operation: 'shiftqLabor',
    scope: 'shiftq:read',
    summary: 'Labor summary of a business date',
    data: shiftq.laborData,
    query: shiftq.businessDateQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/kitchen',
    family: 'shiftq',
    operation: 'shiftqKitchen',
    scope: 'shiftq:read',
    summary: 'Kitchen ticket averages: current snapshot and the requested business date (2.4)',
    data: shiftq.kitchenData,
    query: shiftq.businessDateQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/clock-ins',
    family: 'shiftq',
    operation: 'shiftqClockIns',
    scope: 'shiftq:read',
    summary: 'Clock-ins, role coverage and attendance exceptions of the current business date',
    data: shiftq.clockInsData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/pos-menu',
    family: 'shiftq',
    operation: 'shiftqPosMenu',
    scope: 'shiftq:read',
    summary: 'POS menu with its stock overlay',
    data: shiftq.posMenuData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/employees',
    family: 'shiftq',
    operation: 'shiftqEmployees',
    scope: 'shiftq:read',
    summary: 'Employee, job, shift and time-entry collections',
    data: shiftq.employeesData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/reservations',
    family: 'shiftq',
    operation: 'shiftqReservations',
    scope: 'shiftq:read',
    summary: 'Reservations from the POS reservation digest (2.5)',
    data: shiftq.reservationsData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/toastReservations',
    family: 'shiftq',
    operation: 'shiftqToastReservations',
    scope: 'shiftq:read',
    summary: 'Alias of shiftq/reservations (2.5)',
    data: shiftq.reservationsData,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/shiftq/reviews',
    family: 'shiftq',
    operation: 'shiftqReviews',
    // The contract does not name this scope; reviews are staff-and-operations data, so shiftq:read governs them.
    scope: 'shiftq:read',
    summary: 'Provider-neutral reviews, newest first, with bounded filters and opaque signed page tokens (2.6)',
    data: shiftq.reviewsData,
    query: shiftq.reviewsQuery,
  },
  {
    method: 'GET',
    path: '/v1/{group_id}/shiftq/group-leaderboard',
    family: 'shiftq',
    operation: 'shiftqGroupLeaderboard',
    scope: 'shiftq:read',
    summary: 'Accessible locations ranked by net sales and lowest labor, discounts and voids percentages (2.7)',
    data: shiftq.groupLeaderboardData,
  },
];

export const TOKEN_SCHEMAS = token;

const LOCATION_PREFIX = '/v1/{group_id}/{location_id}';

/** Path parameters that hold ids: a segment breaking the id rule (lambdas/contract/ids.ts) names nothing, so 404. */
export const ID_PARAMS = ['group_id', 'location_id'] as const;

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

/** What path resolution needs of a route; the admin route table (lambdas/admin-api) resolves with the same rules. */
type Routable = { method: string; path: string };
type Match<R extends Routable> = { route: R; params: Record<string, string> };
export type Resolution<R extends Routable = Route> = { match: Match<R> } | { allowed: string[] } | null;

/**
 * A resolver for one route table: it maps a concrete path to its route.
 * Literal segments beat parameters at the same depth, as in API Gateway. It
 * returns the allowed methods when only the method is wrong, and null when
 * no route has the path. The path is the one an HTTP API hands a function:
 * already percent-decoded, so parameters are taken as they stand (decoding
 * again would turn `%2525` into `%` and `%252F` into a separator).
 */
export function pathResolver<R extends Routable>(routes: readonly R[]): (method: string, path: string) => Resolution<R> {
  const compiled = routes.map((route) => ({ route, segments: route.path.split('/').slice(1) }));
  return (method, path) => {
    const parts = path.split('/').slice(1);
    const candidates: { route: R; params: Record<string, string>; rank: string }[] = [];
    for (const { route, segments } of compiled) {
      if (segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let rank = '';
      const ok = segments.every((seg, i) => {
        const part = parts[i]!;
        if (seg.startsWith('{')) {
          if (part === '') return false;
          params[seg.slice(1, -1)] = part;
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
  };
}

export const resolvePath = pathResolver(ROUTES);

/** Looks a route up by its API Gateway resource template, as a Lambda behind API Gateway receives it. */
export function routeByTemplate(method: string, template: string): Route | undefined {
  return ROUTES.find((r) => r.method === method && r.path === template);
}
