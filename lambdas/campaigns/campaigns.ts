import { ok, type Operations, v1Function } from '#platform/api-handler';
import { matriqKeys, matriqRepo } from '#data/matriq';
import { campaignKeys, type CampaignLink, campaignsRepo } from './records.js';
import { groupKeys, groupsRepo } from '#data/groups';
import { groupPage, groupPageReads } from '#platform/group-page';
import type { StoreWith } from '#data/repositories';
import { ApiError } from '#contract/errors';
import { CAMPAIGNS_REFRESH } from '#contract/refresh';
import { deviceStatusOf } from '#domain/device-health';
import { locationRefOf } from '#domain/sports-day';
import { CAMPAIGNS_ROUTES } from './routes.js';
import type { CampaignStatus } from './schemas.js';

/** A campaign's status at an instant: ended once past endsAt, else paused if paused, else by its start. */
export function campaignStatusOf(campaign: { startsAt: string; endsAt: string; paused: boolean }, now: number): CampaignStatus {
  if (now >= Date.parse(campaign.endsAt)) return 'ended';
  if (campaign.paused) return 'paused';
  return now < Date.parse(campaign.startsAt) ? 'scheduled' : 'active';
}

const campaignView = (c: Omit<CampaignLink, 'locationId'>, now: number) => ({
  id: c.id,
  name: c.name,
  status: campaignStatusOf(c, now),
  startsAt: c.startsAt,
  endsAt: c.endsAt,
});

/** The family's own records, beside the shared ones it reads (groups, display devices). */
const OWN_REPOSITORIES = { campaigns: campaignsRepo };
type CampaignsStore = StoreWith<typeof OWN_REPOSITORIES>;

export const operations: Operations<typeof CAMPAIGNS_ROUTES, CampaignsStore> = {
  locationCampaigns: {
    reads: ({ params: p }) => [matriqKeys.state(p.group_id!, p.location_id!), campaignKeys.atLocation(p.group_id!, p.location_id!)],
    async run(req, deps) {
      const location = req.location;
      const [links, state] = await Promise.all([
        deps.store.campaigns.atLocation(location.groupId, location.id),
        deps.store.matriq.get(location.groupId, location.id),
      ]);
      return ok(req, {
        location: locationRefOf(location),
        refresh: CAMPAIGNS_REFRESH,
        campaigns: links.map((c) => campaignView(c, req.now)),
        // A location without registered devices counts none.
        deviceStatus: deviceStatusOf(state?.devices ?? [], req.now),
      });
    },
  },

  /** Only the token's locations that have campaigns enabled are shown, each campaign limited to them. */
  groupCampaigns: {
    reads: (hints) => [groupKeys.group(hints.params.group_id!), ...groupPageReads(hints)],
    async run(req, deps) {
      const { app } = req.auth;
      const [group, { locations, nextCursor }] = await Promise.all([deps.store.groups.get(app.groupId), groupPage(req, deps, 'campaigns')]);
      if (!group) throw new ApiError('not_found');
      const visible = locations.filter((l) => l.modulesEnabled.campaigns);
      // In id order, as the page lists them.
      const ids = visible.map((l) => l.id);
      const [links, states] = await Promise.all([
        // The campaign links of the page's range of those locations.
        ids.length ? deps.store.campaigns.atLocations(app.groupId, ids[0]!, ids.at(-1)!) : [],
        deps.store.matriq.statesOfPage(app.groupId, ids),
      ]);
      const devicesAt = (id: string) => states.get(id)?.devices ?? [];
      // One entry per campaign, in id order, with the page's visible locations it names.
      const byId = new Map<string, ReturnType<typeof campaignView> & { locationIds: string[] }>();
      const order = (a: CampaignLink, b: CampaignLink) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.position - b.position);
      for (const link of links.filter((l) => ids.includes(l.locationId)).sort(order)) {
        const entry = byId.get(link.id) ?? { ...campaignView(link, req.now), locationIds: [] };
        entry.locationIds.push(link.locationId);
        byId.set(link.id, entry);
      }
      const campaigns = [...byId.values()];
      const perLocation = visible.map((l) => ({
        ...locationRefOf(l),
        campaignIds: campaigns.filter((c) => c.locationIds.includes(l.id)).map((c) => c.id),
        deviceStatus: deviceStatusOf(devicesAt(l.id), req.now),
      }));
      return ok(req, {
        group: { id: group.groupId, name: group.name },
        refresh: CAMPAIGNS_REFRESH,
        campaigns,
        locations: perLocation,
        // Every device of the page's visible locations, counted once each.
        deviceStatus: deviceStatusOf(ids.flatMap(devicesAt), req.now),
        ...(nextCursor ? { nextCursor } : {}),
      });
    },
  },
};

/** Campaigns of a group or a location, with display-device status. */
export const { repositories, createHandler, handler } = v1Function<CampaignsStore>('campaigns', operations, CAMPAIGNS_ROUTES, {
  ...OWN_REPOSITORIES,
  groups: groupsRepo,
  matriq: matriqRepo,
});
