import * as v from 'valibot';
import { absoluteUrl, compactDate, isoTimestamp, refresh } from './common.js';
import { isoDate } from './requests.js';
import { keyed, locationRef } from './discovery.js';
import { MATRIQ_RESOURCES } from '../refresh.js';

/**
 * Display devices (contract 2.9): response `data` schemas. Shapes the
 * contract does not show are explained in docs/decisions/matriq.md.
 */

const DEVICE_HEALTH = ['healthy', 'warning', 'offline'] as const;
export type DeviceHealth = (typeof DEVICE_HEALTH)[number];

const STOP_STATUSES = ['queued', 'applied', 'failed'] as const;
export type StopStatus = (typeof STOP_STATUSES)[number];

const health = v.pipe(
  v.picklist(DEVICE_HEALTH),
  v.description('healthy: seen within 5 minutes; warning: within 30; offline: later or never'),
);

/** How many devices are in each health. */
export const deviceStatus = keyed(DEVICE_HEALTH, v.pipe(v.number(), v.safeInteger(), v.minValue(0)));

export const overviewData = v.object({
  location: locationRef,
  summary: v.object({
    deviceIds: v.array(v.string()),
    providerCount: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
    aiSchedulerPublished: v.boolean(),
    aiSchedulerRunning: v.boolean(),
  }),
  endpoints: keyed(MATRIQ_RESOURCES, absoluteUrl),
  refresh: keyed(MATRIQ_RESOURCES, refresh),
});

export const gatewayData = v.object({
  location: locationRef,
  gateway: v.object({
    id: v.string(),
    name: v.string(),
    model: v.string(),
    firmwareVersion: v.string(),
    lastSeenAt: v.nullable(isoTimestamp),
    health,
  }),
  refresh,
});

export const devicesData = v.object({
  location: locationRef,
  devices: v.array(
    v.object({ id: v.string(), name: v.string(), type: v.string(), zone: v.string(), lastSeenAt: v.nullable(isoTimestamp), health }),
  ),
  deviceStatus,
  refresh,
});

export const providerAvailableData = v.object({
  location: locationRef,
  businessDate: v.object({ active: compactDate, calendarDate: isoDate, timezone: v.string() }),
  providers: v.array(v.object({ providerKey: v.string(), providerLabel: v.string(), providerLogo: v.nullable(absoluteUrl) })),
  providersAvailable: v.array(
    v.object({
      eventId: v.string(),
      title: v.string(),
      league: v.string(),
      leagueLogo: v.nullable(absoluteUrl),
      homeTeam: v.string(),
      awayTeam: v.string(),
      homeLogo: v.nullable(absoluteUrl),
      awayLogo: v.nullable(absoluteUrl),
      providerLabel: v.string(),
      providerLogo: v.nullable(absoluteUrl),
      channelNumber: v.string(),
    }),
  ),
  refresh,
});

export const hhmm = v.pipe(v.string(), v.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time HH:MM'));

export const aiSchedulerData = v.object({
  location: locationRef,
  deviceIds: v.array(v.string()),
  businessDay: compactDate,
  statusUpdatedAt: isoTimestamp,
  publishedDraftUpdatedAt: v.nullable(isoTimestamp),
  status: v.object({
    running: v.boolean(),
    published: v.boolean(),
    draftExists: v.boolean(),
    runtime: v.object({
      emergencyStopActive: v.boolean(),
      lastStartAt: v.nullable(isoTimestamp),
      lastStopAt: v.nullable(isoTimestamp),
    }),
  }),
  currentPublishedDraft: v.pipe(
    v.nullable(
      v.object({
        businessDay: compactDate,
        published: v.boolean(),
        status: v.string(),
        draft: v.object({
          title: v.string(),
          items: v.array(v.object({ id: v.string(), start: hhmm, end: hhmm, eventTitle: v.string() })),
        }),
      }),
    ),
    v.description("The draft for the active business day; null when none exists (another day's draft is never shown)"),
  ),
  actions: v.array(
    v.object({ label: v.string(), method: v.literal('POST'), endpoint: absoluteUrl, scope: v.string(), description: v.string() }),
  ),
  refresh,
});

export const emergencyStopData = v.object({
  status: v.picklist(STOP_STATUSES),
  deviceId: v.string(),
  commandId: v.string(),
  requestedAt: isoTimestamp,
  reason: v.string(),
  completedAt: v.pipe(v.nullable(isoTimestamp), v.description('When the gateway reported applied or failed; null while queued')),
  refresh,
});
