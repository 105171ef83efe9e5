import type { Freshness, ProviderStatus, ScheduleStatus } from '#contract/schemas/sportsq';

/**
 * Data-health rules of contract 2.8 and 7.3, pure. Schedule health and
 * provider-availability health are judged separately; freshness is computed
 * from dates on every read, never stored.
 */

export type HealthInputs = {
  /** The date asked for, YYYY-MM-DD. */
  requestedDate: string;
  /** The location's provider environment, if it has one. */
  environment: {
    updatedAt: string;
    providers: { available: boolean; channels: readonly unknown[] }[];
    packages: readonly unknown[];
  } | null;
  /** The location's newest viewing data at or before requestedDate. */
  viewing: { date: string; updatedAt: string; options: Record<string, readonly unknown[]> } | null;
  /** Event ids of requestedDate's schedule; null when there is no schedule for that date. */
  scheduledEventIds: readonly string[] | null;
};

/** EXACT_DATE when the viewing data is for the requested date, STALE_DATE when only an earlier one exists, else MISSING. */
export function freshnessOf(requestedDate: string, viewingDate: string | null): Freshness {
  if (viewingDate === requestedDate) return 'EXACT_DATE';
  // YYYY-MM-DD compares in date order as text.
  if (viewingDate !== null && viewingDate < requestedDate) return 'STALE_DATE';
  return 'MISSING';
}

/**
 * UNAVAILABLE without exact-date viewing data (an earlier day's data is never
 * used) or without a provider environment; STALE when the viewing data was
 * computed before the location's lineup last changed; PARTIAL when a provider
 * is down or a scheduled event has no viewing entry; AVAILABLE otherwise.
 */
export function providerStatusOf({ requestedDate, environment, viewing, scheduledEventIds }: HealthInputs): ProviderStatus {
  if (!environment || !viewing || viewing.date !== requestedDate) return 'PROVIDER_DATA_UNAVAILABLE';
  if (Date.parse(viewing.updatedAt) < Date.parse(environment.updatedAt)) return 'PROVIDER_DATA_STALE';
  const providerDown = environment.providers.some((p) => !p.available);
  const eventUncovered = (scheduledEventIds ?? []).some((id) => !Object.hasOwn(viewing.options, id));
  return providerDown || eventUncovered ? 'PROVIDER_DATA_PARTIAL' : 'AVAILABLE';
}

/** The `availability` object of the provider, packages and programming resources. */
export function availabilityOf(inputs: HealthInputs) {
  const { requestedDate, environment, viewing } = inputs;
  const freshness = freshnessOf(requestedDate, viewing?.date ?? null);
  const exact = freshness === 'EXACT_DATE' ? viewing : null;
  return {
    status: providerStatusOf(inputs),
    requestedDate,
    effectiveDate: freshness === 'MISSING' ? null : viewing!.date,
    freshness,
    updatedAt: exact?.updatedAt ?? environment?.updatedAt ?? null,
    providerCount: environment?.providers.length ?? 0,
    channelCount: environment?.providers.reduce((n, p) => n + p.channels.length, 0) ?? 0,
    packageCount: environment?.packages.length ?? 0,
    viewingOptionCount: exact ? Object.values(exact.options).reduce((n, list) => n + list.length, 0) : 0,
  };
}

export function scheduleHealthOf(schedule: { events: readonly unknown[] } | null): { status: ScheduleStatus; eventCount: number } {
  return schedule ? { status: 'AVAILABLE', eventCount: schedule.events.length } : { status: 'SCHEDULE_DATA_UNAVAILABLE', eventCount: 0 };
}
