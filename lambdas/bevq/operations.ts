import type { ApiRequest, Operations, PathReads, ReadHints } from '#platform/api-handler';
import { menuKeys } from '#data/menus';
import type { Location } from '#data/locations';
import type { MenuHead } from '#data/menus';
import type { Deps } from '#platform/deps';
import { ok } from '#platform/envelope';
import { groupPage, groupPageReads } from '#platform/group-page';
import { groupKeys } from '#data/groups';
import { ApiError } from '#contract/errors';
import { header, type HttpResponse } from '#platform/http';
import { ifNoneMatchHits } from '#domain/etag';
import { BEVQ_REFRESH } from '#contract/refresh';
import { menuResourcePath } from '#contract/urls';

/** Menu responses may be kept by the client only to revalidate, and differ per token. */
const MENU_CACHING = { 'Cache-Control': 'private, no-cache', Vary: 'Authorization' };

const locationOf = (l: Location) => ({ id: l.id, name: l.name, timezone: l.timezone });
const menuUrl = (req: ApiRequest, l: Location) => `${req.baseUrl}${menuResourcePath(l.groupId, l.id)}`;

function summary(req: ApiRequest, location: Location, head: MenuHead | null) {
  return {
    available: head !== null,
    revision: head?.revision ?? null,
    updatedAt: head?.updatedAt ?? null,
    endpoint: menuUrl(req, location),
  };
}

/** Heads of these locations' menus: a missing head means no menu. */
const headsOf = (deps: Deps, groupId: string, locationIds: string[]): Promise<(MenuHead | null)[]> => deps.store.menus.getHeads(groupId, locationIds);

export const operations: Operations = {
  async bevqGroup(req, deps) {
    const { app } = req.auth!;
    const [group, { locations, nextCursor }] = await Promise.all([deps.store.groups.get(app.groupId), groupPage(req, deps, 'bevq')]);
    if (!group) throw new ApiError('not_found');
    const enabled = locations.filter((l) => l.modulesEnabled.bevq);
    const heads = new Map((await headsOf(deps, app.groupId, enabled.map((l) => l.id))).map((h, i) => [enabled[i]!.id, h]));
    return ok(req, {
      group: { id: group.groupId, name: group.name },
      locations: locations.map((l) => ({
        ...locationOf(l),
        bevqEnabled: l.modulesEnabled.bevq,
        menu: summary(req, l, heads.get(l.id) ?? null),
      })),
      refresh: BEVQ_REFRESH,
      ...(nextCursor ? { nextCursor } : {}),
    });
  },

  async bevqLocation(req, deps) {
    const location = req.location!;
    const [head] = await headsOf(deps, location.groupId, [location.id]);
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

  /** A conditional read is answered from the head when it matches (a 304 never reads the body); anything else reads the body. */
  async bevqMenu(req, deps): Promise<HttpResponse> {
    const location = req.location!;
    const ifNoneMatch = header(req.event, 'if-none-match');
    if (ifNoneMatch !== undefined) {
      const head = await deps.store.menus.getHead(location.groupId, location.id);
      if (head && ifNoneMatchHits(ifNoneMatch, head.etag)) return { statusCode: 304, headers: { ETag: head.etag, ...MENU_CACHING }, body: '' };
    }
    const stored = await deps.store.menus.get(location.groupId, location.id);
    if (!stored) throw new ApiError('not_found', 'No beverage menu has been published for this location yet.');
    const headers = { ETag: stored.etag, ...MENU_CACHING };
    if (ifNoneMatch !== undefined && ifNoneMatchHits(ifNoneMatch, stored.etag)) return { statusCode: 304, headers, body: '' };
    return ok(req, { location: locationOf(location), menu: stored.menu, refresh: BEVQ_REFRESH }, headers);
  },
};

/** A location's status reads its head; the menu its body, or only its head when the read is conditional. */
const headOfPath = ({ params: p }: ReadHints) => [menuKeys.head(p.group_id!, p.location_id!)];
export const reads: PathReads = {
  bevqLocation: headOfPath,
  bevqMenu: (hints) =>
    hints.header('if-none-match') !== undefined ? headOfPath(hints) : [menuKeys.menu(hints.params.group_id!, hints.params.location_id!)],
  bevqGroup: (hints) => [groupKeys.group(hints.params.group_id!), ...groupPageReads(hints)],
};
