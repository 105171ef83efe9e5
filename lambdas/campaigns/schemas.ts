import * as v from 'valibot';
import { isoTimestamp, nextCursor, refresh } from '#contract/schemas/common';
import { locationRef } from '#contract/schemas/discovery';
import { deviceStatus } from '#contract/schemas/matriq';

/** Campaigns (contract 2.10). The group resource's shape is ours: docs/decisions/campaigns.md. */

const CAMPAIGN_STATUSES = ['scheduled', 'active', 'paused', 'ended'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

const campaign = v.object({
  id: v.string(),
  name: v.string(),
  status: v.picklist(CAMPAIGN_STATUSES),
  startsAt: isoTimestamp,
  endsAt: isoTimestamp,
});

export const locationCampaignsData = v.object({
  location: locationRef,
  refresh,
  campaigns: v.array(campaign),
  deviceStatus,
});

export const groupCampaignsData = v.object({
  group: v.object({ id: v.string(), name: v.string() }),
  refresh,
  campaigns: v.array(v.object({ ...campaign.entries, locationIds: v.array(v.string()) })),
  locations: v.array(v.object({ ...locationRef.entries, campaignIds: v.array(v.string()), deviceStatus })),
  deviceStatus,
  nextCursor,
});
