import { businessDayStartMs, clockTimeLabel, formatIsoDate, parseCompactDate } from '#contract/business-date';
import type { KitchenSnapshot, TimeBucket } from './kitchen-schemas.js';
import type { KitchenInput } from './inputs.js';
import { round2 } from '#domain/rounding';

/**
 * Kitchen ticket averages of contract 2.4, computed from one business day's
 * raw tickets. Pure. The rules:
 * - every average is ticket-based: sum of ticket times / number of tickets;
 * - prep average divisor = prepTicketCount (tickets whose tracked prep
 *   stations are all done); prep time = last tracked station done − fired;
 * - expediter average = level-1 expo clear − fired, divisor expediterTicketCount;
 * - every nested row (station, sales category, bucket, expediter level/station)
 *   divides by its own ticketCount; rowCount (item rows) is never a divisor;
 * - avgExpoClearMinutes = level-1 clear − prep done (fired when no prep is done),
 *   over cleared level-1 tickets; null when there are none.
 */

const BUCKET_MINUTES = 15;
const RETENTION_DAYS = 366;
const BUCKET_MS = BUCKET_MINUTES * 60_000;

const minutes = (ms: number) => ms / 60_000;

/** Accumulates ticket times for one average row. */
class Acc {
  ticketCount = 0;
  rowCount = 0;
  private sum = 0;
  private min = Infinity;
  private max = -Infinity;
  add(timeMinutes: number, rows: number) {
    this.ticketCount++;
    this.rowCount += rows;
    this.sum += timeMinutes;
    this.min = Math.min(this.min, timeMinutes);
    this.max = Math.max(this.max, timeMinutes);
  }
  average(): number | null {
    return this.ticketCount ? round2(this.sum / this.ticketCount) : null;
  }
  row() {
    return {
      averageBasis: 'ticket_count' as const,
      averageDivisorField: 'ticketCount' as const,
      averageDivisorValue: this.ticketCount,
      averageTicketTimeMinutes: this.average() ?? 0,
      ticketCount: this.ticketCount,
      rowCount: this.rowCount,
      minTicketTimeMinutes: round2(this.min),
      maxTicketTimeMinutes: round2(this.max),
    };
  }
}

/** Keyed accumulators, rows emitted in key order. */
class Groups<K> {
  private readonly map = new Map<string, { key: K; acc: Acc }>();
  constructor(private readonly id: (key: K) => string) {}
  add(key: K, time: number, rows: number) {
    const id = this.id(key);
    const entry = this.map.get(id) ?? this.map.set(id, { key, acc: new Acc() }).get(id)!;
    entry.acc.add(time, rows);
  }
  rows<R>(shape: (key: K, acc: Acc) => R): R[] {
    return [...this.map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => shape(e.key, e.acc));
  }
}

type Station = KitchenInput['stations'][number];
/** One ticket's contribution, resolved against the station configuration. */
type Resolved = ReturnType<typeof resolveTickets>[number];

/** How a station's and an expediter station's rows name it. */
const stationOf = (s: Station) => ({ stationGuid: s.id, stationName: s.name });

/** Aggregates of one set of tickets: the whole day or one bucket. */
function aggregate(tickets: Resolved[]) {
  const prep = new Acc();
  const expediter = new Acc();
  const expoClear = new Acc();
  const stations = new Groups<Station>((s) => s.id);
  const categories = new Groups<string>((c) => c);
  const expo = new Groups<{ level: number; station: Station }>((k) => `${String(k.level).padStart(2, '0')}#${k.station.id}`);
  for (const t of tickets) {
    if (t.prep) {
      prep.add(t.prep.timeMinutes, t.prep.rows);
      categories.add(t.ticket.salesCategory, t.prep.timeMinutes, t.prep.rows);
    }
    for (const s of t.stations) stations.add(s.station, s.timeMinutes, s.rows);
    for (const e of t.expo) expo.add({ level: e.level, station: e.station }, e.timeMinutes, e.rows);
    if (t.level1) {
      expediter.add(t.level1.timeMinutes, t.level1.rows);
      expoClear.add(t.level1.clearMinutes, 0);
    }
  }
  return {
    prep,
    expediter,
    expoClear,
    // The rows as a bucket lists them.
    rows: {
      stationTicketAverages: stations.rows((s, acc) => ({ ...stationOf(s), ...acc.row() })),
      expediterTicketAverages: expo.rows((k, acc) => ({ fulfillmentLevel: k.level, ...stationOf(k.station), ...acc.row() })),
      salesCategoryTicketAverages: categories.rows((c, acc) => ({ salesCategory: c, ...acc.row() })),
    },
  };
}

function resolveTickets(input: KitchenInput, trackedPrep: Set<string>, trackedCategories: Set<string> | null) {
  const byId = new Map(input.stations.map((s) => [s.id, s]));
  const counted = input.tickets.filter((ticket) => !trackedCategories || trackedCategories.has(ticket.salesCategory));
  return counted.map((ticket) => {
    const firedMs = Date.parse(ticket.firedAt);
    const tracked = ticket.prep.filter((p) => trackedPrep.has(p.stationId));
    const stations = tracked
      .filter((p) => p.doneAt !== null)
      .map((p) => ({ station: byId.get(p.stationId)!, timeMinutes: minutes(Date.parse(p.doneAt!) - firedMs), rows: p.itemCount }));
    const allDone = tracked.length > 0 && stations.length === tracked.length;
    // Tracked prep done: set only when every tracked prep station is done.
    const doneMs = allDone ? Math.max(...tracked.map((p) => Date.parse(p.doneAt!))) : null;
    const prep =
      doneMs === null ? null : { timeMinutes: minutes(doneMs - firedMs), rows: stations.reduce((n, s) => n + s.rows, 0), doneMs };
    const expo = ticket.expo
      .filter((e) => e.clearedAt !== null)
      .map((e) => ({
        level: e.fulfillmentLevel,
        station: byId.get(e.stationId)!,
        timeMinutes: minutes(Date.parse(e.clearedAt!) - firedMs),
        rows: e.itemCount,
      }));
    // Level-1 expo cleared: time from fired, and clear time after prep.
    const first = ticket.expo.find((e) => e.fulfillmentLevel === 1);
    // Expo clear time runs from the moment the food was ready: the last done prep station of any kind.
    const anyDone = ticket.prep.filter((p) => p.doneAt !== null).map((p) => Date.parse(p.doneAt!));
    const readyMs = anyDone.length ? Math.max(...anyDone) : firedMs;
    const level1 =
      first && first.clearedAt
        ? {
            timeMinutes: minutes(Date.parse(first.clearedAt) - firedMs),
            rows: first.itemCount,
            clearMinutes: minutes(Math.max(0, Date.parse(first.clearedAt) - readyMs)),
          }
        : null;
    const inProgress = tracked.length > 0 && !allDone;
    const readySinceMs = allDone && first && !first.clearedAt ? doneMs : null;
    return { ticket, firedMs, prep, stations, expo, level1, inProgress, readySinceMs };
  });
}

/** Local 15-minute range text, e.g. "4:15 PM – 4:30 PM" (zone offsets are whole quarter hours, so UTC quarters are local quarters). */
export function bucketLabel(timeZone: string, startMs: number): string {
  return `${clockTimeLabel(timeZone, startMs)} – ${clockTimeLabel(timeZone, startMs + BUCKET_MS)}`;
}

function timeBuckets(tickets: Resolved[], timeZone: string): TimeBucket[] {
  const byStart = new Map<number, Resolved[]>();
  for (const t of tickets) {
    if (!t.prep && !t.level1) continue;
    const start = Math.floor(t.firedMs / BUCKET_MS) * BUCKET_MS;
    (byStart.get(start) ?? byStart.set(start, []).get(start)!).push(t);
  }
  return [...byStart.keys()]
    .sort((a, b) => a - b)
    .map((start) => {
      const agg = aggregate(byStart.get(start)!);
      const row = agg.prep.row();
      const empty = agg.prep.ticketCount === 0;
      return {
        bucketStartMs: start,
        bucketEndMs: start + BUCKET_MS,
        bucketStartIso: new Date(start).toISOString(),
        bucketEndIso: new Date(start + BUCKET_MS).toISOString(),
        bucketLabel: bucketLabel(timeZone, start),
        ...row,
        averageTicketTimeMinutes: agg.prep.average(),
        minTicketTimeMinutes: empty ? null : row.minTicketTimeMinutes,
        maxTicketTimeMinutes: empty ? null : row.maxTicketTimeMinutes,
        avgExpoClearMinutes: agg.expoClear.average(),
        ...agg.rows,
      };
    });
}

/** The snapshot object of 2.4 for one business date's stored kitchen data. */
export function kitchenSnapshot(input: KitchenInput, businessDate: string, timeZone: string): KitchenSnapshot {
  const prepStations = input.stations.filter((s) => s.kind === 'prep');
  const trackAllPrep = input.trackedPrepStations === null;
  const trackedPrep = new Set(trackAllPrep ? prepStations.map((s) => s.id) : input.trackedPrepStations);
  const categories = [...new Set(input.tickets.map((t) => t.salesCategory))].sort();
  const trackAllCategories = input.trackedSalesCategories === null;
  const trackedCategories = trackAllCategories ? null : new Set(input.trackedSalesCategories);

  const tickets = resolveTickets(input, trackedPrep, trackedCategories);
  const day = aggregate(tickets);
  const buckets = timeBuckets(tickets, timeZone);
  const updatedMs = Date.parse(input.updatedAt);
  const readySince = tickets.map((t) => t.readySinceMs).filter((ms): ms is number => ms !== null);
  const levels = new Set(input.tickets.flatMap((t) => t.expo.map((e) => e.fulfillmentLevel)));
  const dateKey = formatIsoDate(parseCompactDate(businessDate)!);
  const status = input.status.state === 'error' ? input.status : { state: input.status.state, httpStatus: input.status.httpStatus };

  return {
    businessDate,
    metricsBusinessDate: businessDate,
    dateKey,
    metricsDateKey: dateKey,
    timezone: timeZone,
    updatedAt: input.updatedAt,
    dayStartMs: businessDayStartMs(timeZone, businessDate),
    selectionMode: trackAllPrep && trackAllCategories ? 'all' : 'selected',
    trackedPrepStations: [...trackedPrep].sort(),
    trackAllPrepStations: trackAllPrep,
    availablePrepStations: prepStations.map(({ kind: _kind, ...station }) => station),
    trackedSalesCategories: trackAllCategories ? categories : [...trackedCategories!].sort(),
    trackAllSalesCategories: trackAllCategories,
    availableSalesCategories: categories,
    queue: {
      inProgressCount: tickets.filter((t) => t.inProgress).length,
      readyQueueCount: readySince.length,
      oldestReadyMinutes: readySince.length ? round2(minutes(Math.max(0, updatedMs - Math.min(...readySince)))) : 0,
    },
    averages: {
      averageBasis: 'ticket_count',
      avgKitchenTicketTimeMinutes: day.prep.average(),
      avgKitchenTicketTimeSource: 'prep_stations',
      avgKitchenTicketTimeDivisorField: 'prepTicketCount',
      avgKitchenTicketTimeDivisorValue: day.prep.ticketCount,
      avgExpediterTicketTimeMinutes: day.expediter.average(),
      avgExpediterTicketTimeSource: 'expediter_level_1',
      avgExpediterTicketTimeDivisorField: 'expediterTicketCount',
      avgExpediterTicketTimeDivisorValue: day.expediter.ticketCount,
      avgExpoClearMinutes: day.expoClear.average(),
    },
    counts: {
      clearedTicketCount: tickets.filter((t) => t.prep && t.ticket.expo.every((e) => e.clearedAt !== null)).length,
      prepTicketCount: day.prep.ticketCount,
      prepRowCount: day.prep.rowCount,
      sourceTicketCount: input.tickets.length,
      expediterTicketCount: day.expediter.ticketCount,
      expediterRowCount: day.expediter.rowCount,
      expediterSourceTicketCount: input.tickets.filter((t) => t.expo.length > 0).length,
      expediterLevelCount: levels.size,
      stationCount: prepStations.length,
      salesCategoryCount: categories.length,
      timeBucketCount: buckets.length,
      thirtyMinuteBucketCount: buckets.length,
    },
    expediterTicketAverages: day.rows.expediterTicketAverages,
    stationTicketAverages: day.rows.stationTicketAverages,
    salesCategoryTicketAverages: day.rows.salesCategoryTicketAverages,
    timeBuckets: buckets,
    bucketIntervalMinutes: BUCKET_MINUTES,
    status,
    retentionDays: RETENTION_DAYS,
  };
}
