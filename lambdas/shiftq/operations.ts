import type { ApiRequest, Operations } from '#platform/api-handler';
import {
  activeBusinessDate,
  addDays,
  daysBetween,
  formatCompactDate,
  parseCompactDate,
  parseIsoDate,
  zonedTimeToUtcMs,
} from '#contract/business-date';
import type { Location } from '#data/locations';
import { SHIFTQ_RETENTION_DAYS, type Stored } from '#data/shiftq';
import { reviewKeys } from '#data/reviews';
import type { Deps } from '#platform/deps';
import { ok } from '#platform/envelope';
import { ApiError } from '#contract/errors';
import { REFRESH } from '#contract/refresh';
import { REVIEW_MAX_RANGE_DAYS, REVIEW_PAGE_LIMIT } from '#contract/schemas/requests';
import { clockInsView, NO_EXCEPTIONS } from './clock-ins.js';
import { employeesView, posMenuView, reservationsView } from './current-views.js';
import type { ClockInsInput, DatedKind, KitchenInput, LaborInput, SalesInput } from '#contract/schemas/shiftq-inputs';
import { kitchenSnapshot } from './kitchen-averages.js';
import { decodePageToken, encodePageToken, pageTokenKey } from './page-token.js';
import { PROVIDER_POLICY } from './review-providers.js';
import { laborView, percent, rankLocations, salesView, type LeaderboardRow } from './sales.js';

const locationRef = (l: Location) => ({ id: l.id, name: l.name, timezone: l.timezone });
const locationPath = (req: ApiRequest, l: Location) =>
  `${req.baseUrl}/v1/${encodeURIComponent(l.groupId)}/${encodeURIComponent(l.id)}/shiftq`;

/** The business date a request reads: `businessDate` / `businessDay` (validated by the route's query schema) or the current one. */
function requestedDate(req: ApiRequest, current: string): string {
  return req.query.businessDate ?? req.query.businessDay ?? current;
}

/** A date is readable while the current business date is at most 366 days after it (the TTL agrees). */
const retained = (date: string, current: string) =>
  daysBetween(parseCompactDate(date)!, parseCompactDate(current)!) <= SHIFTQ_RETENTION_DAYS;

const reasonOf = (found: unknown, date: string, current: string) =>
  found ? null : retained(date, current) ? ('no_data' as const) : ('expired' as const);

async function dated<K extends DatedKind>(
  deps: Deps,
  req: ApiRequest,
  kind: K,
  date: string,
  current: string,
) {
  const l = req.location!;
  if (!retained(date, current)) return null;
  return deps.store.shiftq.getDated(l.groupId, l.id, kind, date, req.now);
}

function salesCompare(date: string, sales: Stored<SalesInput> | null, prior: Stored<SalesInput> | null) {
  const change = sales && prior ? sales.data.netSales - prior.data.netSales : null;
  return {
    basis: 'same_weekday_prior_week' as const,
    businessDate: formatCompactDate(addDays(parseCompactDate(date)!, -7)),
    available: prior !== null,
    netSales: prior?.data.netSales ?? null,
    orderCount: prior?.data.orderCount ?? null,
    guestCount: prior?.data.guestCount ?? null,
    netSalesChange: change === null ? null : Math.round(change * 100) / 100,
    netSalesChangePercent: change === null || !prior ? null : percent(change, prior.data.netSales),
  };
}

async function reservations(req: ApiRequest, deps: Deps, withLabel: boolean) {
  const l = req.location!;
  const stored = await deps.store.shiftq.getCurrent(l.groupId, l.id, 'reservations');
  const { asOfLabel, ...rest } = reservationsView(stored?.data ?? null, l.name, l.timezone);
  return {
    location: locationRef(l),
    refresh: REFRESH.shiftq.reservations,
    source: 'pos_reservations_digest' as const,
    available: stored !== null,
    reservations: withLabel && asOfLabel !== undefined ? { ...rest, asOfLabel } : rest,
  };
}

/** Review filters of one request, normalised; their JSON is what a page token is bound to. */
function reviewFilters(req: ApiRequest) {
  const q = req.query as Record<string, string | number | undefined>;
  const filters = {
    minRating: (q.minRating as number | undefined) ?? null,
    maxRating: (q.maxRating as number | undefined) ?? null,
    provider: (q.provider as string | undefined) ?? null,
    createdFrom: (q.createdFrom as string | undefined) ?? null,
    createdTo: (q.createdTo as string | undefined) ?? null,
  };
  if (filters.minRating !== null && filters.maxRating !== null && filters.minRating > filters.maxRating) {
    throw new ApiError('invalid_request', 'Query parameter minRating: must not exceed maxRating.');
  }
  const from = filters.createdFrom === null ? null : parseIsoDate(filters.createdFrom);
  const to = filters.createdTo === null ? null : parseIsoDate(filters.createdTo);
  if (filters.createdFrom !== null && !from) throw new ApiError('invalid_request', 'Query parameter createdFrom: is not a real calendar date.');
  if (filters.createdTo !== null && !to) throw new ApiError('invalid_request', 'Query parameter createdTo: is not a real calendar date.');
  if (from && to) {
    const span = daysBetween(from, to);
    if (span < 0) throw new ApiError('invalid_request', 'Query parameter createdTo: must not be before createdFrom.');
    if (span >= REVIEW_MAX_RANGE_DAYS) {
      throw new ApiError('invalid_request', `Query parameters createdFrom..createdTo: at most ${REVIEW_MAX_RANGE_DAYS} days.`);
    }
  }
  const zone = req.location!.timezone;
  // Local calendar days of the location: [createdFrom 00:00, day after createdTo 00:00).
  const range = reviewKeys.range(
    from ? zonedTimeToUtcMs(zone, from, 0, 0) : null,
    to ? zonedTimeToUtcMs(zone, addDays(to, 1), 0, 0) : null,
  );
  return { filters, range };
}

export const operations: Operations = {
  async shiftqOverview(req, deps) {
    const l = req.location!;
    const date = activeBusinessDate(l.timezone, req.now);
    const key = { groupId: l.groupId, locationId: l.id, businessDate: date };
    const [[kitchen, sales, labor, clockIns], posMenu, employees, digest] = await Promise.all([
      deps.store.shiftq.getDatedMany(
        (['kitchen', 'sales', 'labor', 'clockIns'] as const).map((kind) => ({ ...key, kind })),
        req.now,
      ) as Promise<[Stored<KitchenInput> | null, Stored<SalesInput> | null, Stored<LaborInput> | null, Stored<ClockInsInput> | null]>,
      deps.store.shiftq.getCurrent(l.groupId, l.id, 'posMenu'),
      deps.store.shiftq.getCurrent(l.groupId, l.id, 'employees'),
      deps.store.shiftq.getCurrent(l.groupId, l.id, 'reservations'),
    ]);
    const snapshot = kitchen ? kitchenSnapshot(kitchen.data, date, l.timezone) : null;
    const staff = clockIns ? clockInsView(clockIns.data) : null;
    const board = sales ? salesView(sales.data, l.timezone).leaderboard.slice(0, 5) : [];
    const reservationsSummary = reservationsView(digest?.data ?? null, l.name, l.timezone);
    const base = locationPath(req, l);
    return ok(req, {
      location: locationRef(l),
      refresh: {
        sales: REFRESH.shiftq.sales,
        labor: REFRESH.shiftq.labor,
        kitchen: REFRESH.shiftq.kitchen,
        posMenu: REFRESH.shiftq.posMenu,
        clockIns: REFRESH.shiftq.clockIns,
        employees: REFRESH.shiftq.employees,
        reservations: REFRESH.shiftq.reservations,
      },
      summary: {
        businessDate: date,
        salesUpdatedAt: sales?.data.updatedAt ?? null,
        laborUpdatedAt: labor?.data.updatedAt ?? null,
        top5Leaderboard: board,
        clockedInCount: staff?.clockedInCount ?? 0,
        soldOutItemCount: posMenu ? posMenuView(posMenu.data).soldOutItemCount : 0,
        managerOnDutyCount: staff?.managerOnDutyCount ?? 0,
        roleGroupCount: staff?.roleCoverage.length ?? 0,
        newTeamMemberCount: employees ? employeesView(employees.data, date).newTeamMemberCount : 0,
        reservationDayCount: reservationsSummary.dayCount,
        reservationPartyCount: reservationsSummary.totalParties,
        kitchenReadyQueueCount: snapshot?.queue.readyQueueCount ?? 0,
        kitchenInProgressCount: snapshot?.queue.inProgressCount ?? 0,
        kitchenStationCount: snapshot?.counts.stationCount ?? 0,
        exceptionCounts: staff?.exceptionCounts ?? NO_EXCEPTIONS,
        kitchenAvgTicketTimeMinutes: snapshot?.averages.avgKitchenTicketTimeMinutes ?? 0,
        kitchenExpediterAvgTicketTimeMinutes: snapshot?.averages.avgExpediterTicketTimeMinutes ?? 0,
      },
      endpoints: Object.fromEntries(
        ['sales', 'labor', 'kitchen', 'clock-ins', 'pos-menu', 'employees', 'reservations', 'toastReservations', 'reviews'].map(
          (r) => [r, `${base}/${r}`],
        ),
      ),
    });
  },

  async shiftqSales(req, deps) {
    const l = req.location!;
    const current = activeBusinessDate(l.timezone, req.now);
    const date = requestedDate(req, current);
    const priorDate = formatCompactDate(addDays(parseCompactDate(date)!, -7));
    const [sales, prior] = await Promise.all([
      dated(deps, req, 'sales', date, current),
      dated(deps, req, 'sales', priorDate, current),
    ]);
    return ok(req, {
      location: locationRef(l),
      refresh: REFRESH.shiftq.sales,
      businessDate: date,
      available: sales !== null,
      unavailableReason: reasonOf(sales, date, current),
      sales: sales ? salesView(sales.data, l.timezone) : null,
      compare: salesCompare(date, sales, prior),
    });
  },

  async shiftqLabor(req, deps) {
    const l = req.location!;
    const current = activeBusinessDate(l.timezone, req.now);
    const date = requestedDate(req, current);
    const [labor, sales] = await Promise.all([
      dated(deps, req, 'labor', date, current),
      dated(deps, req, 'sales', date, current),
    ]);
    return ok(req, {
      location: locationRef(l),
      refresh: REFRESH.shiftq.labor,
      businessDate: date,
      available: labor !== null,
      unavailableReason: reasonOf(labor, date, current),
      labor: labor ? laborView(labor.data, sales?.data ?? null) : null,
    });
  },

  async shiftqKitchen(req, deps) {
    const l = req.location!;
    const current = activeBusinessDate(l.timezone, req.now);
    const requested = requestedDate(req, current);
    const [currentStored, requestedStored] = await Promise.all([
      dated(deps, req, 'kitchen', current, current),
      requested === current ? null : dated(deps, req, 'kitchen', requested, current),
    ]);
    const currentSnapshot = currentStored ? kitchenSnapshot(currentStored.data, current, l.timezone) : null;
    const requestedBucket =
      requested === current ? currentSnapshot : requestedStored ? kitchenSnapshot(requestedStored.data, requested, l.timezone) : null;
    const kitchenUrl = `${locationPath(req, l)}/kitchen`;
    return ok(req, {
      location: locationRef(l),
      refresh: REFRESH.shiftq.kitchen,
      currentBusinessDate: current,
      requestedBusinessDate: requested,
      bucketAvailable: requestedBucket !== null,
      bucketUnavailableReason: reasonOf(requestedBucket, requested, current),
      retentionDays: SHIFTQ_RETENTION_DAYS,
      latestMetadata: currentSnapshot && {
        updatedAt: currentSnapshot.updatedAt,
        businessDate: currentSnapshot.businessDate,
        dateKey: currentSnapshot.dateKey,
        liveBusinessDate: current,
        bucketIntervalMinutes: currentSnapshot.bucketIntervalMinutes,
        lastStatus: currentSnapshot.status.state,
        lastHttpStatus: currentSnapshot.status.httpStatus,
        ...(currentSnapshot.status.error !== undefined ? { lastError: currentSnapshot.status.error } : {}),
        averageBasis: currentSnapshot.averages.averageBasis,
        avgKitchenTicketTimeMinutes: currentSnapshot.averages.avgKitchenTicketTimeMinutes,
        avgKitchenTicketTimeDivisorField: currentSnapshot.averages.avgKitchenTicketTimeDivisorField,
        avgKitchenTicketTimeDivisorValue: currentSnapshot.averages.avgKitchenTicketTimeDivisorValue,
        avgExpediterTicketTimeMinutes: currentSnapshot.averages.avgExpediterTicketTimeMinutes,
        avgExpediterTicketTimeDivisorField: currentSnapshot.averages.avgExpediterTicketTimeDivisorField,
        avgExpediterTicketTimeDivisorValue: currentSnapshot.averages.avgExpediterTicketTimeDivisorValue,
        avgExpoClearMinutes: currentSnapshot.averages.avgExpoClearMinutes,
        prepTicketCount: currentSnapshot.counts.prepTicketCount,
        prepRowCount: currentSnapshot.counts.prepRowCount,
        expediterTicketCount: currentSnapshot.counts.expediterTicketCount,
        expediterRowCount: currentSnapshot.counts.expediterRowCount,
        expediterLevelCount: currentSnapshot.counts.expediterLevelCount,
        stationCount: currentSnapshot.counts.stationCount,
        salesCategoryCount: currentSnapshot.counts.salesCategoryCount,
        timeBucketCount: currentSnapshot.counts.timeBucketCount,
        thirtyMinuteBucketCount: currentSnapshot.counts.thirtyMinuteBucketCount,
      },
      currentSnapshot,
      requestedBucket,
      endpoints: { current: kitchenUrl, byBusinessDate: `${kitchenUrl}?businessDate=${requested}` },
      thirtyMinuteBuckets: requestedBucket?.timeBuckets ?? [],
    });
  },

  async shiftqClockIns(req, deps) {
    const l = req.location!;
    const date = activeBusinessDate(l.timezone, req.now);
    const stored = await deps.store.shiftq.getDated(l.groupId, l.id, 'clockIns', date, req.now);
    const view = stored ? clockInsView(stored.data) : null;
    return ok(req, {
      location: locationRef(l),
      refresh: REFRESH.shiftq.clockIns,
      businessDate: date,
      available: view !== null,
      asOf: view?.asOf ?? null,
      clockedInCount: view?.clockedInCount ?? 0,
      managerOnDutyCount: view?.managerOnDutyCount ?? 0,
      clockedIn: view?.clockedIn ?? [],
      roleCoverage: view?.roleCoverage ?? [],
      alerts: view?.alerts ?? [],
      exceptionCounts: view?.exceptionCounts ?? NO_EXCEPTIONS,
    });
  },

  async shiftqPosMenu(req, deps) {
    const l = req.location!;
    const stored = await deps.store.shiftq.getCurrent(l.groupId, l.id, 'posMenu');
    const view = stored ? posMenuView(stored.data) : null;
    return ok(req, {
      location: locationRef(l),
      refresh: REFRESH.shiftq.posMenu,
      available: view !== null,
      updatedAt: view?.updatedAt ?? null,
      stockUpdatedAt: view?.stockUpdatedAt ?? null,
      currency: view?.currency ?? null,
      itemCount: view?.itemCount ?? 0,
      soldOutItemCount: view?.soldOutItemCount ?? 0,
      groups: view?.groups ?? [],
    });
  },

  async shiftqEmployees(req, deps) {
    const l = req.location!;
    const date = activeBusinessDate(l.timezone, req.now);
    const stored = await deps.store.shiftq.getCurrent(l.groupId, l.id, 'employees');
    const view = stored ? employeesView(stored.data, date) : null;
    return ok(req, {
      location: locationRef(l),
      refresh: REFRESH.shiftq.employees,
      available: view !== null,
      updatedAt: view?.updatedAt ?? null,
      businessDate: date,
      newTeamMemberCount: view?.newTeamMemberCount ?? 0,
      employees: view?.employees ?? [],
      jobs: view?.jobs ?? [],
      shifts: view?.shifts ?? [],
      timeEntries: view?.timeEntries ?? [],
    });
  },

  async shiftqReservations(req, deps) {
    return ok(req, await reservations(req, deps, true));
  },

  async shiftqToastReservations(req, deps) {
    return ok(req, await reservations(req, deps, false));
  },

  async shiftqReviews(req, deps) {
    const l = req.location!;
    const { filters, range } = reviewFilters(req);
    const fingerprint = JSON.stringify(filters);
    const limit = (req.query.limit as unknown as number | undefined) ?? REVIEW_PAGE_LIMIT.default;
    const binding = { groupId: l.groupId, locationId: l.id, filters: fingerprint };
    const key = await pageTokenKey(deps);
    const after = req.query.pageToken ? decodePageToken(key, req.query.pageToken, binding) : null;
    const [providers, page] = await Promise.all([
      deps.store.reviews.activeProviders(l.groupId, l.id),
      deps.store.reviews.page(l.groupId, l.id, {
        ...range,
        after,
        limit,
        filter: {
          ...(filters.minRating !== null ? { minRating: filters.minRating } : {}),
          ...(filters.maxRating !== null ? { maxRating: filters.maxRating } : {}),
          ...(filters.provider !== null ? { provider: filters.provider } : {}),
        },
      }),
    ]);
    const nextPageToken =
      page.hasMore && page.lastKey ? encodePageToken(key, { ...binding, after: page.lastKey }) : null;
    return ok(req, {
      location: { groupId: l.groupId, locationId: l.id, name: l.name },
      refresh: REFRESH.shiftq.reviews,
      capability: { available: (providers ?? []).length > 0, configured: providers !== null, activeProviders: providers ?? [] },
      filters,
      reviews: page.reviews.map((r) => {
        const policy = PROVIDER_POLICY[r.provider];
        return {
          id: r.id,
          provider: r.provider,
          rating: r.rating,
          reviewerDisplayName: policy.showsReviewerNames ? r.reviewerName : `${policy.label} reviewer`,
          text: r.text,
          createdAt: r.createdAt,
          updatedAt: r.updatedAt,
          reviewUrl: r.reviewUrl,
          workflow: { status: r.workflowStatus },
          response: { state: r.responseState },
          attribution: { provider: r.provider, label: policy.label, url: policy.url },
        };
      }),
      page: { limit, count: page.reviews.length, nextPageToken, hasMore: page.hasMore },
    });
  },

  async shiftqGroupLeaderboard(req, deps) {
    const { app } = req.auth!;
    const all = await deps.store.locations.list(app.groupId);
    const locations = all.filter((l) => l.modulesEnabled.shiftq && (!app.allowedLocationIds || app.allowedLocationIds.includes(l.id)));
    const dates = locations.map((l) => activeBusinessDate(l.timezone, req.now));
    const stored = await deps.store.shiftq.getDatedMany(
      locations.flatMap((l, i) => [
        { groupId: l.groupId, locationId: l.id, kind: 'sales' as const, businessDate: dates[i]! },
        { groupId: l.groupId, locationId: l.id, kind: 'labor' as const, businessDate: dates[i]! },
      ]),
      req.now,
    );
    const rows: LeaderboardRow[] = [];
    const updates: string[] = [];
    locations.forEach((l, i) => {
      const sales = stored[2 * i] as Stored<SalesInput> | null;
      const labor = stored[2 * i + 1] as Stored<LaborInput> | null;
      if (!sales || !labor) return;
      const s = salesView(sales.data, l.timezone);
      const laborPercent = laborView(labor.data, sales.data).laborPercent;
      if (s.discountsPercent === null || s.voidsPercent === null || laborPercent === null) return;
      updates.push(sales.data.updatedAt, labor.data.updatedAt);
      rows.push({
        locationId: l.id,
        locationName: l.name,
        locationShortName: l.locationShortName,
        businessDate: dates[i]!,
        netSales: s.netSales,
        discountsPercent: s.discountsPercent,
        laborPercent,
        voidsPercent: s.voidsPercent,
      });
    });
    const latest = updates.length ? new Date(Math.max(...updates.map((u) => Date.parse(u)))).toISOString() : null;
    return ok(req, {
      groupId: app.groupId,
      refresh: REFRESH.shiftq.groupLeaderboard,
      updatedAt: latest,
      count: rows.length,
      leaderboard: rankLocations(rows),
      locationEndpoints: locations.map((l) => ({
        id: l.id,
        name: l.name,
        shiftq: locationPath(req, l),
        sales: `${locationPath(req, l)}/sales`,
      })),
    });
  },
};
