import type { CampaignStatus } from '#contract/schemas/campaigns';

/** A campaign's status at an instant: ended once past endsAt, else paused if paused, else by its start. */
export function campaignStatusOf(campaign: { startsAt: string; endsAt: string; paused: boolean }, now: number): CampaignStatus {
  if (now >= Date.parse(campaign.endsAt)) return 'ended';
  if (campaign.paused) return 'paused';
  return now < Date.parse(campaign.startsAt) ? 'scheduled' : 'active';
}
