import { groupKeys, groupsRepo } from '#data/groups';
import type { Location } from '#data/locations';
import { menuKeys, menusRepo, type MenuHead } from '#data/menus';
import { ifNoneMatchHits } from '#domain/etag';
import { ok, type ApiRequest, type Operations, type ReadHints, v1Function } from '#platform/api-handler';
import { groupPage, groupPageReads } from '#platform/group-page';
import { header } from '#platform/http';
import { ApiError } from '#contract/errors';
import { BEVQ_REFRESH } from '#contract/refresh';
import { BEVQ_ROUTES } from './routes.js';
import { menuResourcePath } from '#contract/urls';

/** Menu responses may be kept by the client only to revalidate, and differ per token. */
const MENU_CACHING = { 'Cache-Control': 'private, no-cache', Vary: 'Authorization' };

const locationOf = (l: Location) => ({ id: l.id, name: l.name, timezone: l.timezone });

function summary(req: ApiRequest, location: Location, head: MenuHead | null) {
  return {
    available: head !== null,
    revision: head?.revision ?? null,
    updatedAt: head?.updatedAt ?? null,
    endpoint: `${req.baseUrl}${menuResourcePath(location.groupId, location.id)}`,
  };
}

/** The path location's menu head. */
const headOfPath = ({ params: p }: ReadHints) => [menuKeys.head(p.group_id!, p.location_id!)];

export const operations: Operations<typeof BEVQ_ROUTES> = {
  bevqGroup: {
    reads: (hints) => [groupKeys.group(hints.params.group_id!), ...groupPageReads(hints)],
    async run(req, deps) {
      const { app } = req.auth;
      const [group, { locations, nextCursor }] = await Promise.all([deps.store.groups.get(app.groupId), groupPage(req, deps, 'bevq')]);
      if (!group) throw new ApiError('not_found');
      // A missing head means no menu; a location without the module shows none, whatever was published.
      const ids = locations.map((l) => l.id);
      const heads = await deps.store.menus.headsOfPage(app.groupId, ids);
      const headOf = (l: Location) => (l.modulesEnabled.bevq ? (heads.get(l.id) ?? null) : null);
      return ok(req, {
        group: { id: group.groupId, name: group.name },
        locations: locations.map((l) => ({
          ...locationOf(l),
          bevqEnabled: l.modulesEnabled.bevq,
          menu: summary(req, l, headOf(l)),
        })),
        refresh: BEVQ_REFRESH,
        ...(nextCursor ? { nextCursor } : {}),
      });
    },
  },

  /** A location's status reads its head. */
  bevqLocation: {
    reads: headOfPath,
    async run(req, deps) {
      const location = req.location;
      const head = await deps.store.menus.getHead(location.groupId, location.id);
      return ok(req, {
        location: locationOf(location),
        status: head ? 'published' : 'not_published',
        menu: {
          ...summary(req, location, head ?? null),
          sectionCount: head?.sectionCount ?? 0,
          itemCount: head?.itemCount ?? 0,
          sourceHealth: head?.sourceHealth ?? null,
        },
        refresh: BEVQ_REFRESH,
      });
    },
  },

  /** A conditional read is answered from the head when it matches (a 304 never reads the body); anything else reads the body. */
  bevqMenu: {
    reads: (hints) =>
      hints.header('if-none-match') !== undefined ? headOfPath(hints) : [menuKeys.menu(hints.params.group_id!, hints.params.location_id!)],
    async run(req, deps) {
      const location = req.location;
      const ifNoneMatch = header(req.event, 'if-none-match');
      const notModified = (etag: string) => ({ statusCode: 304, headers: { ETag: etag, ...MENU_CACHING }, body: '' });
      if (ifNoneMatch !== undefined) {
        const head = await deps.store.menus.getHead(location.groupId, location.id);
        if (head && ifNoneMatchHits(ifNoneMatch, head.etag)) return notModified(head.etag);
      }
      const stored = await deps.store.menus.get(location.groupId, location.id);
      if (!stored) throw new ApiError('not_found', 'No beverage menu has been published for this location yet.');
      if (ifNoneMatch !== undefined && ifNoneMatchHits(ifNoneMatch, stored.etag)) return notModified(stored.etag);
      return ok(req, { location: locationOf(location), menu: stored.menu, refresh: BEVQ_REFRESH }, { ETag: stored.etag, ...MENU_CACHING });
    },
  },
};

/** Beverage-menu family: group availability, location status and the menu with conditional reads. */
export const { repositories, createHandler, handler } = v1Function('bevq', operations, BEVQ_ROUTES, {
  groups: groupsRepo,
  menus: menusRepo,
});
