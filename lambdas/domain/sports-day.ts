import { sportsLogoUrl } from '#contract/urls';
import { activeBusinessDate, formatIsoDate, parseCompactDate } from '#contract/business-date';
import type { Location } from '#data/locations';
import type { HealthInputs } from './sports-health.js';
import {
  type ProviderAvailability,
  type ProviderEnvironment,
  scheduleReads,
  sportsKeys,
  type StoredEvent,
  type ViewingData,
} from '#data/sports';
import type { Read } from '#data/store';
import type { Store } from '#data/repositories';
import type { SportsEvent } from '#contract/schemas/sportsq';

/** The `{id, name, timezone}` location object most resources carry. */
export const locationRefOf = (l: Location) => ({ id: l.id, name: l.name, timezone: l.timezone });

/** The active business date at the location, as YYYYMMDD and as the calendar date YYYY-MM-DD. */
export function businessDateAt(location: Pick<Location, 'timezone'>, now: number): { active: string; calendarDate: string } {
  const active = activeBusinessDate(location.timezone, now);
  return { active, calendarDate: formatIsoDate(parseCompactDate(active)!) };
}

/** Today's calendar date in a time zone, when the zone is known. */
export const todayIn = (timezone: string | undefined, now: number): string | undefined =>
  timezone === undefined ? undefined : businessDateAt({ timezone }, now).calendarDate;

/**
 * What readSportsDay reads, to read it ahead; without the date (not known yet), what does not depend on it. The
 * location's items go into the authorization batch; the league's schedule, which every tenant reads, is started
 * beside it only when this instance does not keep it (data/sports.ts).
 */
export const sportsDayReads = (groupId: string, locationId: string, date: string | undefined, now: number): Read[] => [
  sportsKeys.provider(groupId, locationId),
  sportsKeys.availability(groupId, locationId),
  ...(date ? [...scheduleReads(date, now), sportsKeys.viewingAtOrBefore(groupId, locationId, date)] : []),
];

/**
 * The environment's providers with the device platform's word on their feeds where it has one: the device platform
 * owns reachability (docs/decisions/producers.md), so its report stands for the providers it names, whichever of the
 * two was written last; the sports sync's stands for the others, and it alone says which providers there are.
 */
function withAvailability(environment: ProviderEnvironment | null, availability: ProviderAvailability | null) {
  if (!environment || !availability) return environment;
  const reported = new Map(availability.providers.map((p) => [p.id, p]));
  return {
    ...environment,
    providers: environment.providers.map((p) => {
      const feed = reported.get(p.id);
      return feed ? { ...p, available: feed.available, availabilityState: feed.availabilityState } : p;
    }),
  };
}

/** Everything about one date at one location, read together. */
export async function readSportsDay(store: Store, location: Location, date: string, now: number) {
  const [stored, availability, schedule, viewing] = await Promise.all([
    store.sports.getProvider(location.groupId, location.id),
    store.sports.getAvailability(location.groupId, location.id),
    store.sports.getSchedule(date, now),
    store.sports.viewingAtOrBefore(location.groupId, location.id, date),
  ]);
  const environment = withAvailability(stored, availability);
  const health: HealthInputs = { requestedDate: date, environment, viewing, scheduledEventIds: schedule?.events.map((e) => e.id) ?? null };
  return {
    environment,
    schedule,
    // Viewing data for exactly this date at this location; never another day's.
    exactViewing: viewing?.date === date ? viewing : null,
    health,
  };
}

export function eventView(baseUrl: string, event: StoredEvent, viewing: ViewingData | null): SportsEvent {
  const { league, participants, eventImage, ...rest } = event;
  const { image: leagueImage, ...leagueFields } = league;
  return {
    ...rest,
    league: { ...leagueFields, imageUrl: sportsLogoUrl(baseUrl, leagueImage) },
    participants: participants.map(({ image, ...p }) => ({ ...p, imageUrl: sportsLogoUrl(baseUrl, image) })),
    eventImageUrl: sportsLogoUrl(baseUrl, eventImage),
    viewingOptions: viewing?.options[event.id] ?? [],
  };
}
