import * as v from 'valibot';
import { id, isoTimestamp } from '#contract/schemas/common';
import { parseInput } from '#contract/validation';
import type { Store } from '#data/repositories';
import type { OrderedOutcome, SourceOrder } from '#data/store';
import { AdminInputError } from '#domain/inputs';
import type { Campaign, campaignsRepo } from '#lambdas/campaigns/records';
import { eachInParallel, type Operation } from './operation.js';

/**
 * A group's campaign, whole, as the campaign system sends it and `campaigns load` reads it: validated (its shape,
 * its dates, its locations exist), then written in its source's order with a link item per location it lists
 * (docs/decisions/campaigns.md), an older update never changing a newer one's links.
 */

const campaignFields = {
  name: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)),
  locationIds: v.pipe(
    v.array(id),
    v.minLength(1),
    v.maxLength(1000),
    v.checkItems((locationId, i, all) => all.indexOf(locationId) === i, 'is listed twice'),
  ),
  startsAt: isoTimestamp,
  endsAt: isoTimestamp,
  paused: v.optional(v.boolean(), false),
};

/** A campaign with its ids (a file entry of `campaigns load`). */
export const campaignRecord = v.pipe(
  v.strictObject({ groupId: id, id, ...campaignFields }),
  v.forward(
    v.partialCheck([['startsAt'], ['endsAt']], (c) => Date.parse(c.endsAt) > Date.parse(c.startsAt), 'must be after startsAt'),
    ['endsAt'],
  ),
);
type CampaignRecord = v.InferOutput<typeof campaignRecord>;

/** A producer's campaign under the ids its path names: a body naming them again is refused. */
const campaignData = v.strictObject(campaignFields);

/** Refuses, naming them, the locations a campaign lists that do not exist (read a few at a time). */
export async function requireCampaignLocations(store: Pick<Store, 'locations'>, { groupId, locationIds }: CampaignRecord): Promise<void> {
  const missing: string[] = [];
  await eachInParallel(locationIds, async (locationId) => {
    if (!(await store.locations.get(groupId, locationId))) missing.push(`${groupId}/${locationId}`);
  });
  if (missing.length) throw new AdminInputError(`locationIds: unknown locations: ${missing.sort().join(', ')}`);
}

const after = (a: SourceOrder, b: SourceOrder) => a.sourceMs > b.sourceMs || (a.sourceMs === b.sourceMs && a.sequence > b.sequence);

/**
 * Writes a valid campaign in `order`: its links first, each in that order (putInOrder: never over a newer one), the
 * links of locations the campaign it replaces listed and this one does not deleted unless newer, and the campaign
 * item last. The campaign item stands for an update written whole: a writer that stopped before it left the older
 * campaign in place, so the producer's retry is applied and writes every link again; once it is written, a replay
 * is a duplicate with nothing left to write. Between concurrent updates of one campaign the newest wins: the older,
 * found stale at its campaign item, deletes the links it wrote that the newer does not list, and the newer deletes
 * those of whichever campaign its put replaced.
 */
export async function writeCampaign(
  store: { campaigns: ReturnType<typeof campaignsRepo> },
  record: CampaignRecord,
  order: SourceOrder,
  now: number,
): Promise<OrderedOutcome> {
  const { campaigns } = store;
  const { groupId, id: campaignId, locationIds } = record;
  const before = await campaigns.get(groupId, campaignId);
  // An older update or a replay writes nothing: nothing of it is missing (the campaign item is written last).
  if (before?.order && !after(order, before.order)) return after(before.order, order) ? 'stale' : 'duplicate';
  const campaign: Campaign = { ...record, updatedAt: new Date(now).toISOString() };
  const { locationIds: _l, updatedAt: _u, ...shown } = campaign;
  const dropLinks = (listed: readonly string[], keep: readonly string[]) =>
    eachInParallel(
      listed.filter((locationId) => !keep.includes(locationId)),
      (locationId) => campaigns.deleteLink(groupId, locationId, campaignId, order),
    );

  await eachInParallel(locationIds, (locationId, position) => campaigns.putLink({ ...shown, locationId, position }, order));
  const listedBefore = before?.campaign.locationIds ?? [];
  await dropLinks(listedBefore, locationIds);
  const { outcome, replaced } = await campaigns.putInOrder(campaign, order);
  if (outcome === 'applied' && replaced) await dropLinks(replaced.locationIds, [...locationIds, ...listedBefore]);
  if (outcome === 'stale') await dropLinks(locationIds, (await campaigns.get(groupId, campaignId))?.campaign.locationIds ?? []);
  return outcome;
}

/** The campaign system's route. */
export const CAMPAIGN_OPERATIONS = {
  putCampaign: async (deps, { groupId, campaignId }, data, order) => {
    const record = parseInput(campaignRecord, { groupId, id: campaignId, ...parseInput(campaignData, data) });
    await requireCampaignLocations(deps.store, record);
    return { outcome: await writeCampaign(deps.store, record, order, order.now), records: 1 };
  },
} satisfies Record<string, Operation>;
