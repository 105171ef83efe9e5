import { sportsLogoUrl } from '#contract/urls';
import { envelope, ok, type LocationRequest, type Operations, type ReadHints, v1Function } from '#platform/api-handler';
import { type HttpResponse, jsonResponse } from '#platform/http';
import { SPORTSQ_REFRESH } from '#contract/refresh';
import { availabilityOf, providerStatusOf, scheduleHealthOf } from '#domain/sports-health';
import { businessDateAt, eventView, locationRefOf, readSportsDay, sportsDayReads, todayIn } from '#domain/sports-day';
import { sportsRepo } from '#data/sports';
import { SPORTSQ_ROUTES } from './routes.js';
import type { Deps } from '#platform/deps';

/** Which date a route reads: ahead of the request from its hints (undefined: unknown yet), and the request's own. */
type DayOf = { ahead: (hints: ReadHints) => string | undefined; at: (req: LocationRequest) => string };

/** Resources without a date in the path describe the location's current business date (ahead: by the zone last seen). */
const TODAY: DayOf = {
  ahead: ({ timezone, now }) => todayIn(timezone, now),
  at: (req) => businessDateAt(req.location, req.now).calendarDate,
};

/** Each route reads one sports day of the path's location, and answers from it. */
const dayRead = (
  dayOf: DayOf,
  answer: (req: LocationRequest, day: Awaited<ReturnType<typeof readSportsDay>>, date: string) => HttpResponse,
) => ({
  reads: (hints: ReadHints) => sportsDayReads(hints.params.group_id!, hints.params.location_id!, dayOf.ahead(hints), hints.now),
  async run(req: LocationRequest, deps: Deps) {
    const date = dayOf.at(req);
    return answer(req, await readSportsDay(deps.store, req.location, date, req.now), date);
  },
});

export const operations: Operations<typeof SPORTSQ_ROUTES> = {
  sportsProvider: dayRead(TODAY, (req, day) => {
    const providers = (day.environment?.providers ?? []).map(({ logo: _logo, ...p }) => p);
    return ok(req, {
      location: locationRefOf(req.location),
      availability: availabilityOf(day.health),
      providers,
      regionalSportsNetworks: day.environment?.regionalSportsNetworks ?? [],
      refresh: SPORTSQ_REFRESH,
    });
  }),

  sportsPackages: dayRead(TODAY, (req, day) => {
    const { location } = req;
    const env = day.environment;
    const packages = env?.packages ?? [];
    const programming = packages.find((p) => p.id === env?.programmingPackageId) ?? null;
    const { status, requestedDate, effectiveDate, freshness } = availabilityOf(day.health);
    return ok(req, {
      location: locationRefOf(location),
      refresh: SPORTSQ_REFRESH,
      catalog: packages.map((p) => ({
        packageKey: p.id,
        label: p.name,
        logo: sportsLogoUrl(req.baseUrl, p.image),
        category: p.type,
        selected: p.enabled,
      })),
      selectedPackageKeys: packages.filter((p) => p.enabled).map((p) => p.id),
      programmingPackageKey: programming?.id ?? null,
      canonical: {
        location: { groupId: location.groupId, locationId: location.id },
        availability: { status, requestedDate, effectiveDate, freshness },
        programmingPackage: programming
          ? { id: programming.id, name: programming.name, imageUrl: sportsLogoUrl(req.baseUrl, programming.image) }
          : null,
        packages: packages.map(({ image, ...p }) => ({ ...p, imageUrl: sportsLogoUrl(req.baseUrl, image) })),
        regionalSportsNetworks: env?.regionalSportsNetworks ?? [],
      },
    });
  }),

  // The path date is already a real YYYY-MM-DD (route params); it is the only date read.
  sportsProgramming: dayRead({ ahead: ({ params }) => params.date, at: (req) => req.params.date! }, (req, day, date) => {
    const { location } = req;
    const programming = {
      location: { groupId: location.groupId, locationId: location.id, timezone: location.timezone },
      date,
      updatedAt: day.schedule?.updatedAt ?? null,
      health: { schedule: scheduleHealthOf(day.schedule), providerAvailability: availabilityOf(day.health) },
      events: (day.schedule?.events ?? []).map((e) => eventView(req.baseUrl, e, day.exactViewing)),
      refresh: SPORTSQ_REFRESH,
    };
    // The envelope names the concrete date (2.1: `sportsq/<YYYY-MM-DD>`).
    return jsonResponse(200, envelope(req, programming, `sportsq/${date}`));
  }),

  sportsGuide: dayRead(
    { ahead: (hints) => hints.query.date ?? TODAY.ahead(hints), at: (req) => req.query.date ?? TODAY.at(req) },
    (req, day, date) => {
      const { location } = req;
      const options = Object.values(day.exactViewing?.options ?? {})
        .flat()
        .filter((o) => o.available);
      // Each network once (as its first option names it), with every channel any option gives it.
      const networks = new Map(options.map((o) => [o.network.id, o.network] as const).reverse());
      return ok(req, {
        location: locationRefOf(location),
        date,
        refresh: SPORTSQ_REFRESH,
        settings: { timezone: location.timezone, programmingPackageKey: day.environment?.programmingPackageId ?? null },
        selections: {
          packageKeys: (day.environment?.packages ?? []).filter((p) => p.enabled).map((p) => p.id),
          providerIds: (day.environment?.providers ?? []).filter((p) => p.available).map((p) => p.id),
        },
        networkCatalog: [...networks.values()]
          .sort((a, b) => a.id.localeCompare(b.id))
          .map((n) => ({
            networkId: n.id,
            name: n.name,
            type: n.type,
            channels: [...new Set(options.filter((o) => o.network.id === n.id).map((o) => o.channel))].sort(),
          })),
        guide: {
          scheduleStatus: scheduleHealthOf(day.schedule).status,
          providerStatus: providerStatusOf(day.health),
          listings: (day.schedule?.events ?? []).map((e) => ({
            eventId: e.id,
            title: e.name,
            league: e.league.abbreviation,
            startsAt: e.startsAt,
            channels: (day.exactViewing?.options[e.id] ?? [])
              .filter((o) => o.available)
              .map((o) => ({ providerId: o.provider.id, networkId: o.network.id, channel: o.channel })),
          })),
        },
      });
    },
  ),
};

/** Sports programming: provider environment, packages, exact-date programming and the legacy guide. */
export const { repositories, createHandler, handler } = v1Function('sportsq', operations, SPORTSQ_ROUTES, { sports: sportsRepo });
