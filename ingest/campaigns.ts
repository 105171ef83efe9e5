import * as v from 'valibot';
import type { IngestStore } from './store.js';
import { requireLocations } from './locations-exist.js';
import { AdminInputError } from '#domain/inputs';
import { parseInput } from '#contract/validation';
import { id, isoTimestamp } from '#contract/schemas/common';

const campaign = v.pipe(
  v.strictObject({
    groupId: id,
    id,
    name: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)),
    locationIds: v.pipe(v.array(id), v.minLength(1), v.maxLength(1000)),
    startsAt: isoTimestamp,
    endsAt: isoTimestamp,
    paused: v.optional(v.boolean(), false),
  }),
  v.forward(
    v.partialCheck([['startsAt'], ['endsAt']], (c) => Date.parse(c.endsAt) > Date.parse(c.startsAt), 'must be after startsAt'),
    ['endsAt'],
  ),
);

export const campaignsFile = v.strictObject({ campaigns: v.pipe(v.array(campaign), v.minLength(1)) });

/** Creates or replaces campaigns; every campaign and location is checked before anything is written. */
export async function loadCampaigns(store: IngestStore, input: unknown, now: number) {
  const { campaigns } = parseInput(campaignsFile, input);
  const keys = campaigns.map((c) => `${c.groupId}/${c.id}`);
  if (new Set(keys).size !== keys.length) throw new AdminInputError('campaign ids repeat within a group');
  await requireLocations(
    store,
    campaigns.flatMap((c) => c.locationIds.map((locationId) => ({ groupId: c.groupId, locationId }))),
  );
  const updatedAt = new Date(now).toISOString();
  for (const c of campaigns) await store.campaigns.put({ ...c, updatedAt });
  return { campaigns: campaigns.length };
}
