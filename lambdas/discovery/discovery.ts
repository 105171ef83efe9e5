import { readFile } from 'node:fs/promises';
import { ok, type GroupRequest, type Operations, v1Function } from '#platform/api-handler';
import { groupKeys, groupsRepo } from '#data/groups';
import type { App } from '#data/apps';
import type { Location } from '#data/locations';
import { groupPage, groupPageReads } from '#platform/group-page';
import { baseUrlVary, jsonTextResponse } from '#platform/http';
import { ApiError } from '#contract/errors';
import { locationUrl } from '#contract/urls';
import { withServerUrl } from '#contract/openapi-artefact';
import { DISCOVERY_REFRESH } from '#contract/refresh';
import { isLocationRoute, moduleOfRoute, resourceName } from '#contract/routes';
import { ROUTES } from './all-routes.js';
import { DISCOVERY_ROUTES } from './routes.js';
import { type Module, MODULES, type Scope } from '#contract/scopes';
import { LEGACY_BEARER } from '#contract/credentials';

/** The location-level resources a token may be granted, each with its scope and module: worked out once, read per location. */
const LOCATION_RESOURCES = ROUTES.filter((r) => r.method === 'GET' && r.scope !== null && isLocationRoute(r)).map((r) => ({
  scope: r.scope!,
  module: moduleOfRoute(r),
  name: resourceName(r),
}));

/** Location-level resources the application may read there: held scope and enabled module. */
export function grantedResources(app: App, location: Location, module?: Module): string[] {
  return LOCATION_RESOURCES.filter(
    (r) =>
      app.scopes.includes(r.scope) &&
      (module === undefined || r.module === module) &&
      (r.module === null || location.modulesEnabled[r.module]),
  ).map((r) => r.name);
}

/** Every module with its scope and whether the token holds it, and what `more` tells of it. */
const modulesOf = (app: App, more: (m: Module) => object) =>
  Object.fromEntries(MODULES.map((m) => [m, { scope: `${m}:read`, granted: app.scopes.includes(`${m}:read` as Scope), ...more(m) }]));

function locationItem(req: GroupRequest, location: Location) {
  const { app } = req.auth;
  const root = locationUrl(req.baseUrl, location);
  return {
    id: location.id,
    name: location.name,
    locationShortName: location.locationShortName,
    timezone: location.timezone,
    slug: location.slug,
    status: location.status,
    modulesEnabled: location.modulesEnabled,
    resources: grantedResources(app, location),
    endpoints: { root, modules: `${root}/modules`, shiftq: `${root}/shiftq`, sportsq: `${root}/sportsq`, matriq: `${root}/matriq` },
  };
}

function tokenBlock(req: GroupRequest) {
  const { app, credential } = req.auth;
  return {
    scopeType: app.allowedLocationIds ? ('location' as const) : ('group' as const),
    scopes: app.scopes,
    rateLimitPerMinute: app.rateLimitPerMinute,
    expiresAt: app.expiresAt,
    accessTokenExpiresAt: credential.expiresAt,
    credentialType: app.credentialType,
    status: 'active' as const,
    ...(app.allowedLocationIds ? { allowedLocationIds: app.allowedLocationIds } : {}),
    tokenPrefix: app.credentialType === LEGACY_BEARER ? app.tokenPrefix : '',
  };
}

/** The OpenAPI artefact by path, read once per container (a failed read is tried again on the next request). */
const artefacts = new Map<string, Promise<string>>();

function openApiArtefact(path: string): Promise<string> {
  let artefact = artefacts.get(path);
  if (!artefact) {
    artefact = readFile(path, 'utf8');
    artefacts.set(path, artefact);
    artefact.catch(() => artefacts.delete(path));
  }
  return artefact;
}

export const operations: Operations<typeof DISCOVERY_ROUTES> = {
  /** Generated at synth time (the converter and the response schemas stay out of this bundle); only the server URL is filled in here. */
  openapi: {
    async run(req, deps) {
      const artefact = await openApiArtefact(deps.config.openApiDocumentPath);
      // Cached by anyone for five minutes: its server URL never comes from the request's Host (platform/http.ts baseUrlOf).
      return jsonTextResponse(200, withServerUrl(artefact, req.baseUrl), {
        'Cache-Control': 'public, max-age=300',
        ...baseUrlVary(deps.config),
      });
    },
  },

  listLocations: {
    reads: groupPageReads,
    async run(req, deps) {
      const { locations, nextCursor } = await groupPage(req, deps, 'locations');
      return ok(req, {
        token: tokenBlock(req),
        locations: locations.map((l) => locationItem(req, l)),
        refresh: DISCOVERY_REFRESH,
        ...(nextCursor ? { nextCursor } : {}),
      });
    },
  },

  groupModules: {
    reads: (hints) => [groupKeys.group(hints.params.group_id!), ...groupPageReads(hints)],
    async run(req, deps) {
      const { app } = req.auth;
      const [group, { locations, nextCursor }] = await Promise.all([deps.store.groups.get(app.groupId), groupPage(req, deps, 'modules')]);
      if (!group) throw new ApiError('not_found');
      return ok(req, {
        group: { id: group.groupId, name: group.name },
        modules: modulesOf(app, (m) => ({ locationIds: locations.filter((l) => l.modulesEnabled[m]).map((l) => l.id) })),
        refresh: DISCOVERY_REFRESH,
        ...(nextCursor ? { nextCursor } : {}),
      });
    },
  },

  locationModules: {
    async run(req) {
      const { app } = req.auth;
      const location = req.location;
      return ok(req, {
        location: { id: location.id, name: location.name, timezone: location.timezone },
        modulesEnabled: location.modulesEnabled,
        modules: modulesOf(app, (m) => ({ enabled: location.modulesEnabled[m], resources: grantedResources(app, location, m) })),
        refresh: DISCOVERY_REFRESH,
      });
    },
  },

  locationSummary: {
    async run(req) {
      const { resources, endpoints: urls, modulesEnabled, ...location } = locationItem(req, req.location);
      return ok(req, { location, modulesEnabled, resources, endpoints: urls, refresh: DISCOVERY_REFRESH });
    },
  },
};

/** Discovery family; also API Gateway's catch-all, answering 404/405 for unknown paths and methods. */
export const { repositories, createHandler, handler } = v1Function('discovery', operations, ROUTES, { groups: groupsRepo });
