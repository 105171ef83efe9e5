import type { App } from '#data/apps';
import type { Destination } from '#data/destinations';

/**
 * Who may own a destination and which locations it covers (contract 6.5
 * rules 1 and 3). Checked when saving and again before every attempt.
 */

/** Why an application cannot own (or keep receiving on) a destination, or null when it can. */
export function appIneligibility(app: App | null, now: number): string | null {
  if (!app) return 'application_removed';
  if (app.credentialType !== 'client_credentials') return 'legacy_credential';
  if (app.status !== 'active') return 'application_revoked';
  if (app.expiresAt && Date.parse(app.expiresAt) <= now) return 'application_inactive';
  if (!app.scopes.includes('bevq:read')) return 'application_without_bevq';
  return null;
}

/**
 * The locations a destination receives events for: its own list when it has
 * one (never widened), else the application's allowlist, else null meaning
 * every location of the group, including future ones.
 */
export function coveredLocationIds(destination: Pick<Destination, 'locationIds'>, app: App): string[] | null {
  const own = destination.locationIds;
  if (own && app.allowedLocationIds) return own.filter((l) => app.allowedLocationIds!.includes(l));
  return own ?? app.allowedLocationIds;
}

export function covers(destination: Pick<Destination, 'locationIds' | 'groupId'>, app: App, groupId: string, locationId: string): boolean {
  if (destination.groupId !== groupId || app.groupId !== groupId) return false;
  const covered = coveredLocationIds(destination, app);
  return covered === null || covered.includes(locationId);
}
