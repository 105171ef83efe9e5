import * as v from 'valibot';
import { activeBusinessDate, businessDayEndMs, businessDayStartMs, parseCompactDate } from '#contract/business-date';
import { ITEM_VALUE_BUDGET_BYTES } from '#data/limits';
import { encodeBody, retentionEndMs } from '#lambdas/shiftq/records';
import { kitchenSnapshot } from '#lambdas/shiftq/kitchen-averages';
import type { IngestStore } from './store.js';
import {
  clockInsInput,
  CURRENT_KINDS,
  DATED_KINDS,
  employeesInput,
  kitchenInput,
  laborInput,
  posMenuInput,
  reservationsInput,
  reviewsInput,
  salesInput,
  type CurrentKind,
  type DatedKind,
  type KitchenInput,
  type ReviewInput,
} from '#lambdas/shiftq/inputs';
import { AdminInputError } from '#domain/inputs';
import { parseInput } from '#contract/validation';
import { id } from '#contract/schemas/common';

/**
 * Loads shiftq data for one location: per-business-date resources (raw
 * kitchen tickets, sales, labor, clock-ins), current-state resources (POS
 * menu, employees, reservations digest) and reviews. Every entry is validated
 * before anything is written; a refused load writes nothing.
 */

const SHIFTQ_KINDS = [...DATED_KINDS, ...CURRENT_KINDS, 'reviews'] as const;
type ShiftqKind = (typeof SHIFTQ_KINDS)[number];

const DATA_SCHEMAS = {
  kitchen: kitchenInput,
  sales: salesInput,
  labor: laborInput,
  clockIns: clockInsInput,
  posMenu: posMenuInput,
  employees: employeesInput,
  reservations: reservationsInput,
  reviews: reviewsInput,
} as const;

const entry = v.strictObject({
  kind: v.picklist(SHIFTQ_KINDS),
  businessDate: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{8}$/, 'must be a date YYYYMMDD'),
      v.check((d) => parseCompactDate(d) !== null, 'is not a real calendar date'),
    ),
  ),
  data: v.unknown(),
});

/** One location's load: a single entry or a list of them (the `shiftq load` file). */
const shiftqLoadInput = v.object({
  groupId: id,
  locationId: id,
  entries: v.pipe(v.array(entry), v.minLength(1), v.maxLength(200)),
});
export type ShiftqLoadInput = v.InferInput<typeof shiftqLoadInput>;

export type ShiftqLoaded = { kind: ShiftqKind; businessDate: string | null; records: number };

/** The entries of a `shiftq load` file: one entry object, or `{"entries": [...]}`. */
export function shiftqFileEntries(file: unknown): unknown {
  if (file !== null && typeof file === 'object' && 'entries' in file) return file.entries;
  return [file];
}

const isDated = (kind: ShiftqKind): kind is DatedKind => (DATED_KINDS as readonly string[]).includes(kind);

/** Rules the kitchen schema cannot express: references resolve, times are in order and inside the business day. */
function kitchenProblems(data: KitchenInput, timeZone: string, businessDate: string): string[] {
  const problems: string[] = [];
  const stations = new Map(data.stations.map((s) => [s.id, s]));
  if (stations.size !== data.stations.length) problems.push('stations: ids repeat');
  for (const tracked of data.trackedPrepStations ?? []) {
    if (stations.get(tracked)?.kind !== 'prep') problems.push(`trackedPrepStations: ${tracked} is not a prep station`);
  }
  const start = businessDayStartMs(timeZone, businessDate);
  const end = businessDayEndMs(timeZone, businessDate);
  const ids = new Set<string>();
  for (const [i, t] of data.tickets.entries()) {
    const at = `tickets.${i}`;
    if (ids.has(t.id)) problems.push(`${at}: ticket id ${t.id} repeats`);
    ids.add(t.id);
    const fired = Date.parse(t.firedAt);
    if (fired < start || fired >= end) problems.push(`${at}.firedAt: outside business date ${businessDate} (${timeZone})`);
    for (const p of t.prep) {
      if (stations.get(p.stationId)?.kind !== 'prep') problems.push(`${at}.prep: ${p.stationId} is not a prep station`);
      if (p.doneAt !== null && Date.parse(p.doneAt) < fired) problems.push(`${at}.prep: doneAt before firedAt`);
    }
    const levels = new Set<number>();
    for (const e of t.expo) {
      if (stations.get(e.stationId)?.kind !== 'expediter') problems.push(`${at}.expo: ${e.stationId} is not an expediter station`);
      if (e.clearedAt !== null && Date.parse(e.clearedAt) < fired) problems.push(`${at}.expo: clearedAt before firedAt`);
      if (levels.has(e.fulfillmentLevel)) problems.push(`${at}.expo: level ${e.fulfillmentLevel} repeats`);
      levels.add(e.fulfillmentLevel);
    }
    if (problems.length > 20) break;
  }
  return problems;
}

function reviewProblems(reviews: ReviewInput[]): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const [i, r] of reviews.entries()) {
    if (ids.has(r.id)) problems.push(`reviews.${i}: id ${r.id} repeats`);
    ids.add(r.id);
    if (Date.parse(r.updatedAt) < Date.parse(r.createdAt)) problems.push(`reviews.${i}: updatedAt before createdAt`);
  }
  return problems;
}

type Prepared =
  /** `snapshot`: a kitchen day's snapshot, stored beside its tickets (the reads serve it, never compute it). */
  | { kind: DatedKind; businessDate: string; body: Uint8Array; snapshot?: Uint8Array; ttl: number; records: number }
  | { kind: CurrentKind; businessDate: null; body: Uint8Array; records: number }
  | { kind: 'reviews'; businessDate: null; reviews: ReviewInput[]; records: number };

/** Validates every entry and writes them only when all are valid. */
export async function loadShiftq(store: IngestStore, input: unknown, now: number): Promise<ShiftqLoaded[]> {
  const { groupId, locationId, entries } = parseInput(shiftqLoadInput, input);
  const location = await store.locations.get(groupId, locationId);
  if (!location) throw new AdminInputError(`location ${groupId}/${locationId} does not exist`);
  const zone = location.timezone;
  const current = activeBusinessDate(zone, now);

  const prepared: Prepared[] = entries.map((e, i) => {
    const where = `entries.${i} (${e.kind})`;
    const fail = (message: string) => new AdminInputError(`${where}: ${message}`);
    let data: unknown;
    try {
      data = parseInput(DATA_SCHEMAS[e.kind], e.data);
    } catch (err) {
      throw fail((err as Error).message);
    }
    if (e.kind === 'reviews') {
      if (e.businessDate !== undefined) throw fail('businessDate: reviews are not per business date');
      const reviews = (data as { reviews: ReviewInput[] }).reviews;
      const problems = reviewProblems(reviews);
      if (problems.length) throw fail(problems.join('; '));
      return { kind: 'reviews', businessDate: null, reviews, records: reviews.length };
    }
    const encoded = (value: unknown, what: string) => {
      const body = encodeBody(value);
      if (body.length > ITEM_VALUE_BUDGET_BYTES)
        throw fail(
          `too large to store: ${what}${body.length.toLocaleString('en')} bytes compressed, at most ${ITEM_VALUE_BUDGET_BYTES.toLocaleString('en')} in one item`,
        );
      return body;
    };
    const body = encoded(data, '');
    if (!isDated(e.kind)) {
      if (e.businessDate !== undefined) throw fail('businessDate: this resource is current state, not per business date');
      return { kind: e.kind, businessDate: null, body, records: 1 };
    }
    const date = e.businessDate;
    if (date === undefined) throw fail('businessDate: required (YYYYMMDD)');
    if (date > current) throw fail(`businessDate: ${date} has not started at ${location.id} (current ${current})`);
    const expiresMs = retentionEndMs(zone, date);
    if (expiresMs <= now) throw fail(`businessDate: ${date} is past the 366-day retention`);
    const ttl = Math.floor(expiresMs / 1000);
    if (e.kind !== 'kitchen') return { kind: e.kind, businessDate: date, body, ttl, records: 1 };
    const kitchen = data as KitchenInput;
    const problems = kitchenProblems(kitchen, zone, date);
    if (problems.length) throw fail(problems.slice(0, 20).join('; '));
    const snapshot = encoded(kitchenSnapshot(kitchen, date, zone), 'its snapshot is ');
    return { kind: e.kind, businessDate: date, body, snapshot, ttl, records: kitchen.tickets.length };
  });

  const loadedAt = new Date(now).toISOString();
  const newProviders = new Set<string>();
  for (const p of prepared) {
    if (p.kind === 'reviews') {
      await store.reviews.putAll(groupId, locationId, p.reviews);
      for (const r of p.reviews) newProviders.add(r.provider);
    } else if (p.businessDate === null) {
      await store.shiftq.putCurrent(groupId, locationId, p.kind, p.body, loadedAt);
    } else {
      await store.shiftq.putDated(groupId, locationId, p.kind, p.businessDate, p.body, p.ttl, loadedAt);
      // After its tickets: a snapshot never exists without the tickets it was computed from.
      if (p.snapshot) await store.shiftq.putDated(groupId, locationId, 'kitchenSnapshot', p.businessDate, p.snapshot, p.ttl, loadedAt);
    }
  }
  await store.reviews.addActiveProviders(groupId, locationId, [...newProviders]);
  return prepared.map((p) => ({ kind: p.kind, businessDate: p.businessDate, records: p.records }));
}
