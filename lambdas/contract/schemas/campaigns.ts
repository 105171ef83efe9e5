import * as z from 'zod';
import { isoTimestamp, nextCursor, refresh } from './common.js';
import { locationRef } from './discovery.js';
import { deviceStatus } from './matriq.js';

/** Campaigns (contract 2.10). The group resource's shape is ours: docs/decisions/campaigns.md. */

export const CAMPAIGN_STATUSES = ['scheduled', 'active', 'paused', 'ended'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const campaign = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(CAMPAIGN_STATUSES),
  startsAt: isoTimestamp,
  endsAt: isoTimestamp,
});

export const locationCampaignsData = z.object({
  location: locationRef,
  refresh,
  campaigns: z.array(campaign),
  deviceStatus,
});

export const groupCampaignsData = z.object({
  group: z.object({ id: z.string(), name: z.string() }),
  refresh,
  campaigns: z.array(campaign.extend({ locationIds: z.array(z.string()) })),
  locations: z.array(locationRef.extend({ campaignIds: z.array(z.string()), deviceStatus })),
  deviceStatus,
  nextCursor,
});
