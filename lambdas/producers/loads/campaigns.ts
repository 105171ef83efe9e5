import * as v from 'valibot';
import type { IngestStore } from './store.js';
import { AdminInputError } from '#domain/inputs';
import { parseInput } from '#contract/validation';
import { campaignRecord, requireCampaignLocations, writeCampaign } from '#lambdas/producers/campaigns';

export const campaignsFile = v.strictObject({ campaigns: v.pipe(v.array(campaignRecord), v.minLength(1)) });

/**
 * Creates or replaces campaigns by the campaign system's rules (lambdas/producers/campaigns.ts); every campaign and
 * location is checked before anything is written. The load is the source, observed when it runs: each campaign's
 * place in the file is its sequence.
 */
export async function loadCampaigns(store: IngestStore, input: unknown, now: number) {
  const { campaigns } = parseInput(campaignsFile, input);
  const keys = campaigns.map((c) => `${c.groupId}/${c.id}`);
  if (new Set(keys).size !== keys.length) throw new AdminInputError('campaign ids repeat within a group');
  for (const c of campaigns) await requireCampaignLocations(store, c);
  for (const [sequence, c] of campaigns.entries()) await writeCampaign(store, c, { sourceMs: now, sequence }, now);
  return { campaigns: campaigns.length };
}
