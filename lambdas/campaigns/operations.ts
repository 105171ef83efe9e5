import type { Operations, PathReads } from '#platform/api-handler';
import { matriqKeys } from '#data/matriq';
import { campaignKeys, type Campaign } from '#data/campaigns';
import { groupKeys } from '#data/groups';
import type { Location } from '#data/locations';
import { groupPage, groupPageReads } from '#platform/group-page';
import type { Deps } from '#platform/deps';
import { ok } from '#platform/envelope';
import { ApiError } from '#contract/errors';
import { REFRESH } from '#contract/refresh';
import { deviceStatusOf } from '#domain/device-health';
import { locationRefOf } from '#domain/sports-day';
import { campaignStatusOf } from './status.js';

const campaignView = (c: Campaign, now: number) => ({
  id: c.id,
  name: c.name,
  status: campaignStatusOf(c, now),
  startsAt: c.startsAt,
  endsAt: c.endsAt,
});

/** Display-device health at a location; a location without registered devices counts none. */
async function deviceStatusAt(deps: Deps, location: Location, now: number) {
  const state = await deps.store.matriq.get(location.groupId, location.id);
  return deviceStatusOf(state?.devices ?? [], now);
}

export const operations: Operations = {
  async locationCampaigns(req, deps) {
    const location = req.location!;
    const [all, deviceStatus] = await Promise.all([
      deps.store.campaigns.list(location.groupId),
      deviceStatusAt(deps, location, req.now),
    ]);
    return ok(req, {
      location: locationRefOf(location),
      refresh: REFRESH.campaigns,
      campaigns: all.filter((c) => c.locationIds.includes(location.id)).map((c) => campaignView(c, req.now)),
      deviceStatus,
    });
  },

  /** Only the token's locations that have campaigns enabled are shown, each campaign limited to them. */
  async groupCampaigns(req, deps) {
    const { app } = req.auth!;
    const [group, { locations, nextCursor }, all] = await Promise.all([
      deps.store.groups.get(app.groupId),
      groupPage(req, deps, 'campaigns'),
      deps.store.campaigns.list(app.groupId),
    ]);
    if (!group) throw new ApiError('not_found');
    const visible = locations.filter((l) => l.modulesEnabled.campaigns);
    const visibleIds = new Set(visible.map((l) => l.id));
    const campaigns = all
      .map((c) => ({ ...campaignView(c, req.now), locationIds: c.locationIds.filter((id) => visibleIds.has(id)) }))
      .filter((c) => c.locationIds.length > 0);
    const states = await deps.store.matriq.getMany(app.groupId, visible.map((l) => l.id));
    const perLocation = visible.map((l, i) => ({
      ...locationRefOf(l),
      campaignIds: campaigns.filter((c) => c.locationIds.includes(l.id)).map((c) => c.id),
      deviceStatus: deviceStatusOf(states[i]?.devices ?? [], req.now),
    }));
    const total = { healthy: 0, warning: 0, offline: 0 };
    for (const { deviceStatus } of perLocation) {
      total.healthy += deviceStatus.healthy;
      total.warning += deviceStatus.warning;
      total.offline += deviceStatus.offline;
    }
    return ok(req, {
      group: { id: group.groupId, name: group.name },
      refresh: REFRESH.campaigns,
      campaigns,
      locations: perLocation,
      deviceStatus: total,
      ...(nextCursor ? { nextCursor } : {}),
    });
  },
};

/** Both read the group's campaigns; a location's start from its device state, the group's from the group and its locations. */
export const reads: PathReads = {
  locationCampaigns: ({ params: p }) => [matriqKeys.state(p.group_id!, p.location_id!), campaignKeys.ofGroup(p.group_id!)],
  groupCampaigns: (hints) => [groupKeys.group(hints.params.group_id!), ...groupPageReads(hints), campaignKeys.ofGroup(hints.params.group_id!)],
};
