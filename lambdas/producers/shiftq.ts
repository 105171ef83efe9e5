import * as v from 'valibot';
import { activeBusinessDate, businessDayEndMs, businessDayStartMs, parseCompactDate } from '#contract/business-date';
import { ApiError } from '#contract/errors';
import { parseInput } from '#contract/validation';
import { ITEM_VALUE_BUDGET_BYTES } from '#data/limits';
import type { Location } from '#data/locations';
import type { OrderedOutcome, SourceOrder } from '#data/store';
import { AdminInputError } from '#domain/inputs';
import { kitchenSnapshot } from '#lambdas/shiftq/kitchen-averages';
import { CURRENT_KINDS, DATED_KINDS, SHIFTQ_INPUTS, type CurrentKind, type DatedKind, type KitchenInput } from '#lambdas/shiftq/inputs';
import { encodeBody, retentionEndMs } from '#lambdas/shiftq/records';
import type { ShiftqStore } from '#lambdas/shiftq/store';
import { NOT_FOUND, requireLocation, type Operation, type Order, type ProducerDeps } from './operation.js';

/**
 * A staff-and-operations update of one location: a business date's kitchen tickets, sales, labor or clock-ins, or
 * the current POS menu, employees or reservations digest. Validated whole before anything is written, then written
 * in the source's order (putInOrder): a replay or an older update changes nothing.
 */

export type ShiftqResource = DatedKind | CurrentKind;
export const SHIFTQ_RESOURCES = [...DATED_KINDS, ...CURRENT_KINDS] as readonly ShiftqResource[];
const isShiftqResource = (name: string): name is ShiftqResource => (SHIFTQ_RESOURCES as readonly string[]).includes(name);
const isDated = (kind: ShiftqResource): kind is DatedKind => (DATED_KINDS as readonly string[]).includes(kind);

/** An update ready to write: its items' bodies, measured. */
export type ShiftqUpdate =
  /** `snapshot`: a kitchen day's snapshot, stored beside its tickets (the reads serve it, never compute it). */
  | { kind: DatedKind; businessDate: string; body: Uint8Array; snapshot?: Uint8Array; ttl: number; records: number }
  | { kind: CurrentKind; businessDate: null; body: Uint8Array; records: number };

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

/** Body bytes as stored, refused when they cannot fit the one item they go in. */
function encoded(value: unknown, what: string): Uint8Array {
  const body = encodeBody(value);
  if (body.length > ITEM_VALUE_BUDGET_BYTES)
    throw new AdminInputError(
      `too large to store: ${what}${body.length.toLocaleString('en')} bytes compressed, at most ${ITEM_VALUE_BUDGET_BYTES.toLocaleString('en')} in one item`,
    );
  return body;
}

/**
 * Validates one update of `kind` (and its business date, for a dated kind) at `location`: its data, its date
 * (real, started at the location, inside the 366-day retention) and the kitchen's references. Throws an
 * AdminInputError naming the field and the rule; writes nothing.
 */
export function prepareShiftq(
  location: Location,
  kind: ShiftqResource,
  businessDate: string | undefined,
  data: unknown,
  now: number,
): ShiftqUpdate {
  const parsed = parseInput(SHIFTQ_INPUTS[kind] as v.GenericSchema, data);
  const body = encoded(parsed, '');
  if (!isDated(kind)) {
    if (businessDate !== undefined) throw new AdminInputError('businessDate: this resource is current state, not per business date');
    return { kind, businessDate: null, body, records: 1 };
  }
  if (businessDate === undefined) throw new AdminInputError('businessDate: required (YYYYMMDD)');
  const zone = location.timezone;
  const current = activeBusinessDate(zone, now);
  if (businessDate > current)
    throw new AdminInputError(`businessDate: ${businessDate} has not started at ${location.id} (current ${current})`);
  const expiresMs = retentionEndMs(zone, businessDate);
  if (expiresMs <= now) throw new AdminInputError(`businessDate: ${businessDate} is past the 366-day retention`);
  const ttl = Math.floor(expiresMs / 1000);
  if (kind !== 'kitchen') return { kind, businessDate, body, ttl, records: 1 };
  const kitchen = parsed as KitchenInput;
  const problems = kitchenProblems(kitchen, zone, businessDate);
  if (problems.length) throw new AdminInputError(problems.slice(0, 20).join('; '));
  const snapshot = encoded(kitchenSnapshot(kitchen, businessDate, zone), 'its snapshot is ');
  return { kind, businessDate, body, snapshot, ttl, records: kitchen.tickets.length };
}

/**
 * Writes a prepared update in the source's order. A kitchen day's snapshot follows its tickets, in the same order:
 * written only once the tickets were, so a snapshot never exists without the tickets it was computed from, and an
 * older update's snapshot never replaces a newer one's. A replay writes it too: a writer that stopped between the
 * two items leaves the snapshot to the producer's retry.
 */
export async function writeShiftq(
  store: ShiftqStore,
  location: Pick<Location, 'groupId' | 'id'>,
  update: ShiftqUpdate,
  order: SourceOrder,
  now: number,
): Promise<OrderedOutcome> {
  const { groupId, id: locationId } = location;
  const loadedAt = new Date(now).toISOString();
  if (update.businessDate === null)
    return store.shiftq.putCurrent(groupId, locationId, update.kind, { body: update.body, loadedAt }, order);
  const { kind, businessDate, body, ttl, snapshot } = update;
  const outcome = await store.shiftq.putDated(groupId, locationId, kind, businessDate, { body, ttl, loadedAt }, order);
  if (outcome !== 'stale' && snapshot)
    await store.shiftq.putDated(groupId, locationId, 'kitchenSnapshot', businessDate, { body: snapshot, ttl, loadedAt }, order);
  return outcome;
}

async function shiftq(deps: ProducerDeps, params: Record<string, string>, businessDate: string | undefined, data: unknown, order: Order) {
  const { groupId, locationId, resource } = params;
  // The route decides what a resource is: a dated one below a business date, a current one without.
  const current = (CURRENT_KINDS as readonly string[]).includes(resource!);
  if (!isShiftqResource(resource!) || current !== (businessDate === undefined)) throw new ApiError('not_found', NOT_FOUND);
  if (businessDate !== undefined && parseCompactDate(businessDate) === null)
    throw new AdminInputError('businessDate: must be a real calendar date YYYYMMDD');
  const location = await requireLocation(deps, groupId!, locationId!);
  const prepared = prepareShiftq(location, resource, businessDate, data, order.now);
  const outcome = await writeShiftq(deps.store, location, prepared, order, order.now);
  return { outcome, records: prepared.records };
}

/** The POS sync's staff-and-operations routes. */
export const SHIFTQ_OPERATIONS = {
  putShiftqDay: (deps, params, data, order) => shiftq(deps, params, params.businessDate, data, order),
  putShiftqCurrent: (deps, params, data, order) => shiftq(deps, params, undefined, data, order),
} satisfies Record<string, Operation>;
