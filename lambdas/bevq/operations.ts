import type { ApiRequest, Operations, PathReads, ReadHints } from '#platform/api-handler';
import { menuKeys } from '#data/menus';
import type { Location } from '#data/locations';
import type { StoredMenu } from '#data/menus';
import { ok } from '#platform/envelope';
import { groupPage, groupPageReads } from '#platform/group-page';
import { groupKeys } from '#data/groups';
import { ApiError } from '#contract/errors';
import { header, type HttpResponse } from '#platform/http';
import { ifNoneMatchHits } from '#domain/etag';
import { REFRESH } from '#contract/refresh';
import { menuResourcePath } from '#contract/urls';

/** Menu responses may be kept by the client only to revalidate, and differ per token. */
const MENU_CACHING = { 'Cache-Control': 'private, no-cache', Vary: 'Authorization' };

const locationOf = (l: Location) => ({ id: l.id, name: l.name, timezone: l.timezone });
const menuUrl = (req: ApiRequest, l: Location) => `${req.baseUrl}${menuResourcePath(l.groupId, l.id)}`;

function summary(req: ApiRequest, location: Location, stored: StoredMenu | null) {
  return {
    available: stored !== null,
    revision: stored?.menu.revision ?? null,
    updatedAt: stored?.menu.updatedAt ?? null,
    endpoint: menuUrl(req, location),
  };
}

export const operations: Operations = {
  async bevqGroup(req, deps) {
    const { app } = req.auth!;
    const [group, { locations, nextCursor }] = await Promise.all([deps.store.groups.get(app.groupId), groupPage(req, deps, 'bevq')]);
    if (!group) throw new ApiError('not_found');
    const enabled = locations.filter((l) => l.modulesEnabled.bevq);
    const menus = new Map((await deps.store.menus.getMany(app.groupId, enabled.map((l) => l.id))).map((m, i) => [enabled[i]!.id, m]));
    return ok(req, {
      group: { id: group.groupId, name: group.name },
      locations: locations.map((l) => ({
        ...locationOf(l),
        bevqEnabled: l.modulesEnabled.bevq,
        menu: summary(req, l, menus.get(l.id) ?? null),
      })),
      refresh: REFRESH.bevq,
      ...(nextCursor ? { nextCursor } : {}),
    });
  },

  async bevqLocation(req, deps) {
    const location = req.location!;
    const stored = await deps.store.menus.get(location.groupId, location.id);
    return ok(req, {
      location: locationOf(location),
      status: stored ? 'published' : 'not_published',
      menu: {
        ...summary(req, location, stored),
        sectionCount: stored?.menu.sectionCount ?? 0,
        itemCount: stored?.menu.itemCount ?? 0,
        sourceHealth: stored?.menu.sourceHealth ?? null,
      },
      refresh: REFRESH.bevq,
    });
  },

  async bevqMenu(req, deps): Promise<HttpResponse> {
    const location = req.location!;
    const stored = await deps.store.menus.get(location.groupId, location.id);
    if (!stored) throw new ApiError('not_found', 'No beverage menu has been published for this location yet.');
    const headers = { ETag: stored.etag, ...MENU_CACHING };
    if (ifNoneMatchHits(header(req.event, 'if-none-match'), stored.etag)) {
      return { statusCode: 304, headers, body: '' };
    }
    return ok(req, { location: locationOf(location), menu: stored.menu, refresh: REFRESH.bevq }, headers);
  },
};

/** A location's status and menu read its menu item, named by the path. */
const menuOf = ({ params: p }: ReadHints) => [menuKeys.menu(p.group_id!, p.location_id!)];
export const reads: PathReads = {
  bevqLocation: menuOf,
  bevqMenu: menuOf,
  bevqGroup: (hints) => [groupKeys.group(hints.params.group_id!), ...groupPageReads(hints)],
};
