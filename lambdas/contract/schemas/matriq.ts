import * as z from 'zod';
import { absoluteUrl, compactDate, isoDate, isoTimestamp, refresh } from './common.js';
import { locationRef } from './discovery.js';

/**
 * Display devices (contract 2.9): response `data` schemas. Shapes the
 * contract does not show are explained in docs/decisions/matriq.md.
 */

export const DEVICE_HEALTH = ['healthy', 'warning', 'offline'] as const;
export type DeviceHealth = (typeof DEVICE_HEALTH)[number];

export const STOP_STATUSES = ['queued', 'applied', 'failed'] as const;
export type StopStatus = (typeof STOP_STATUSES)[number];

const health = z.enum(DEVICE_HEALTH).describe('healthy: seen within 5 minutes; warning: within 30; offline: later or never');

export const deviceStatus = z.object({
  healthy: z.number().int().nonnegative(),
  warning: z.number().int().nonnegative(),
  offline: z.number().int().nonnegative(),
});

/** `refresh` of the composite matriq resources, keyed by sub-resource (2.1). */
export const matriqRefresh = z.object({
  gateway: refresh,
  devices: refresh,
  providerAvailable: refresh,
  aiScheduler: refresh,
});

export const overviewData = z.object({
  location: locationRef,
  summary: z.object({
    deviceIds: z.array(z.string()),
    providerCount: z.number().int().nonnegative(),
    aiSchedulerPublished: z.boolean(),
    aiSchedulerRunning: z.boolean(),
  }),
  endpoints: z.object({ gateway: absoluteUrl, devices: absoluteUrl, providerAvailable: absoluteUrl, aiScheduler: absoluteUrl }),
  refresh: matriqRefresh,
});

export const gatewayData = z.object({
  location: locationRef,
  gateway: z.object({
    id: z.string(),
    name: z.string(),
    model: z.string(),
    firmwareVersion: z.string(),
    lastSeenAt: isoTimestamp.nullable(),
    health,
  }),
  refresh,
});

export const devicesData = z.object({
  location: locationRef,
  devices: z.array(
    z.object({ id: z.string(), name: z.string(), type: z.string(), zone: z.string(), lastSeenAt: isoTimestamp.nullable(), health }),
  ),
  deviceStatus,
  refresh,
});

export const providerAvailableData = z.object({
  location: locationRef,
  businessDate: z.object({ active: compactDate, calendarDate: isoDate, timezone: z.string() }),
  providers: z.array(z.object({ providerKey: z.string(), providerLabel: z.string(), providerLogo: absoluteUrl.nullable() })),
  providersAvailable: z.array(
    z.object({
      eventId: z.string(),
      title: z.string(),
      league: z.string(),
      leagueLogo: absoluteUrl.nullable(),
      homeTeam: z.string(),
      awayTeam: z.string(),
      homeLogo: absoluteUrl.nullable(),
      awayLogo: absoluteUrl.nullable(),
      providerLabel: z.string(),
      providerLogo: absoluteUrl.nullable(),
      channelNumber: z.string(),
    }),
  ),
  refresh,
});

export const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/);

export const aiSchedulerData = z.object({
  location: locationRef,
  deviceIds: z.array(z.string()),
  businessDay: compactDate,
  statusUpdatedAt: isoTimestamp,
  publishedDraftUpdatedAt: isoTimestamp.nullable(),
  status: z.object({
    running: z.boolean(),
    published: z.boolean(),
    draftExists: z.boolean(),
    runtime: z.object({
      emergencyStopActive: z.boolean(),
      lastStartAt: isoTimestamp.nullable(),
      lastStopAt: isoTimestamp.nullable(),
    }),
  }),
  currentPublishedDraft: z
    .object({
      businessDay: compactDate,
      published: z.boolean(),
      status: z.string(),
      draft: z.object({
        title: z.string(),
        items: z.array(z.object({ id: z.string(), start: hhmm, end: hhmm, eventTitle: z.string() })),
      }),
    })
    .nullable()
    .describe("The draft for the active business day; null when none exists (another day's draft is never shown)"),
  actions: z.array(
    z.object({ label: z.string(), method: z.literal('POST'), endpoint: absoluteUrl, scope: z.string(), description: z.string() }),
  ),
  refresh,
});


export const emergencyStopData = z.object({
  status: z.enum(STOP_STATUSES),
  deviceId: z.string(),
  commandId: z.string(),
  requestedAt: isoTimestamp,
  reason: z.string(),
  completedAt: isoTimestamp.nullable().describe('When the gateway reported applied or failed; null while queued'),
  refresh,
});
