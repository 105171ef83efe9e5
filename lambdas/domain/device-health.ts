import type { DeviceHealth } from '#contract/schemas/matriq';

/** Reporting windows: a device (or gateway) seen within 5 minutes is healthy, within 30 a warning, else offline. */
const HEALTHY_WITHIN_MS = 5 * 60_000;
const WARNING_WITHIN_MS = 30 * 60_000;

export function deviceHealthOf(lastSeenAt: string | null, now: number): DeviceHealth {
  if (lastSeenAt === null) return 'offline';
  const age = now - Date.parse(lastSeenAt);
  if (age <= HEALTHY_WITHIN_MS) return 'healthy';
  if (age <= WARNING_WITHIN_MS) return 'warning';
  return 'offline';
}

/** The `deviceStatus` counts of a set of devices. */
export function deviceStatusOf(devices: readonly { lastSeenAt: string | null }[], now: number): Record<DeviceHealth, number> {
  const counts = { healthy: 0, warning: 0, offline: 0 };
  for (const d of devices) counts[deviceHealthOf(d.lastSeenAt, now)] += 1;
  return counts;
}
