import * as z from 'zod';
import type { Store } from '#data/repositories';
import { requireLocations } from './locations-exist.js';
import { AdminInputError, parseInput } from '#domain/inputs';
import { id } from '#contract/schemas/common';

const instant = z.string().datetime({ offset: true });

export const campaignsFile = z
  .object({
    campaigns: z
      .array(
        z
          .object({
            groupId: id,
            id,
            name: z.string().trim().min(1).max(200),
            locationIds: z.array(id).min(1).max(1000),
            startsAt: instant,
            endsAt: instant,
            paused: z.boolean().default(false),
          })
          .strict()
          .refine((c) => Date.parse(c.endsAt) > Date.parse(c.startsAt), { message: 'endsAt must be after startsAt', path: ['endsAt'] }),
      )
      .min(1),
  })
  .strict();
export type CampaignsFile = z.input<typeof campaignsFile>;

/** Creates or replaces campaigns; every campaign and location is checked before anything is written. */
export async function loadCampaigns(store: Store, input: unknown, now: number) {
  const { campaigns } = parseInput(campaignsFile, input);
  const keys = campaigns.map((c) => `${c.groupId}/${c.id}`);
  if (new Set(keys).size !== keys.length) throw new AdminInputError('campaign ids repeat within a group');
  await requireLocations(store, campaigns.flatMap((c) => c.locationIds.map((locationId) => ({ groupId: c.groupId, locationId }))));
  const updatedAt = new Date(now).toISOString();
  for (const c of campaigns) await store.campaigns.put({ ...c, updatedAt });
  return { campaigns: campaigns.length };
}
