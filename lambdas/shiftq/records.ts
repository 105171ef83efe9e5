import { gunzipSync, gzipSync } from 'node:zlib';
import { addDays, businessDayEndMs, formatCompactDate, parseCompactDate } from '#contract/business-date';
import type { KitchenSnapshot } from './kitchen-schemas.js';
import type { CurrentData, CurrentKind, DatedData, DatedKind } from './inputs.js';
import { getItem, type Db, itemOf, type OrderedOutcome, putInOrder, readItems, type SourceOrder } from '#data/store';

/**
 * shiftq data of one location. Per-business-date resources (kitchen tickets,
 * sales, labor, clock-ins) are one item per (group, location, kind, date),
 * expiring 366 business days later; current-state resources (POS menu,
 * employees, reservations digest) are one item per kind, replaced on load.
 * Bodies are gzipped JSON: a busy kitchen day of raw tickets is far larger
 * than DynamoDB's 400 KB item limit as plain attributes. Beside a day's raw
 * kitchen tickets sits its kitchen snapshot, computed when they are loaded:
 * the reads serve the snapshot and never compute it.
 */

export const SHIFTQ_RETENTION_DAYS = 366;

/** What is stored per business date: each loaded kind, and the kitchen snapshot computed from the loaded tickets. */
export type StoredDatedKind = DatedKind | 'kitchenSnapshot';
type StoredDatedData = DatedData & { kitchenSnapshot: KitchenSnapshot };

/** A kind's name in its sort key: the kind in capitals (KITCHEN, CLOCKINS, POSMENU…), the snapshot's KITCHEN_SNAPSHOT. */
const skName = (kind: StoredDatedKind | CurrentKind) => (kind === 'kitchenSnapshot' ? 'KITCHEN_SNAPSHOT' : kind.toUpperCase());

export const shiftqKeys = {
  partition: (groupId: string, locationId: string) => `LOC#${groupId}#${locationId}`,
  dated: (groupId: string, locationId: string, kind: StoredDatedKind, businessDate: string) => ({
    PK: shiftqKeys.partition(groupId, locationId),
    SK: `SHIFTQ#${skName(kind)}#${businessDate}`,
  }),
  current: (groupId: string, locationId: string, kind: CurrentKind) => ({
    PK: shiftqKeys.partition(groupId, locationId),
    SK: `SHIFTQ#${skName(kind)}`,
  }),
};

/**
 * Epoch ms at which a business date's data expires: the end of the business
 * date 366 days later, so the date is readable while the current business
 * date is at most 366 days after it (local calendar days, DST-proof).
 */
export function retentionEndMs(timeZone: string, businessDate: string): number {
  return businessDayEndMs(timeZone, formatCompactDate(addDays(parseCompactDate(businessDate)!, SHIFTQ_RETENTION_DAYS)));
}

export type Stored<T> = { data: T; loadedAt: string };
/** A business date's item of each kind as a read finds it: null when missing or expired. */
export type StoredDay = { [K in StoredDatedKind]: Stored<StoredDatedData[K]> | null };

export function encodeBody(data: unknown): Uint8Array {
  return gzipSync(JSON.stringify(data));
}

function decode<T>(item: Record<string, unknown>): Stored<T> {
  return { data: JSON.parse(gunzipSync(item.body as Uint8Array).toString('utf8')) as T, loadedAt: String(item.loadedAt) };
}

/** dynalite keeps expired items, and DynamoDB deletes them lazily: expiry is checked on every read. */
const live = (item: Record<string, unknown> | null, nowMs: number): item is Record<string, unknown> =>
  item !== null && (typeof item.ttl !== 'number' || item.ttl * 1000 > nowMs);

type DatedRequest = { groupId: string; locationId: string; kind: StoredDatedKind; businessDate: string };

export function shiftqRepo(db: Db) {
  return {
    async getDated<K extends StoredDatedKind>(groupId: string, locationId: string, kind: K, businessDate: string, nowMs: number) {
      const item = await getItem(db, shiftqKeys.dated(groupId, locationId, kind, businessDate));
      return live(item, nowMs) ? decode<StoredDatedData[K]>(item) : null;
    },

    /** Several dated items in one round trip (batches in parallel, unprocessed keys retried with backoff), in the order asked; null where missing or expired. */
    async getDatedMany(requests: DatedRequest[], nowMs: number): Promise<(Stored<unknown> | null)[]> {
      const keys = requests.map((r) => shiftqKeys.dated(r.groupId, r.locationId, r.kind, r.businessDate));
      const found = await readItems(db, keys, false);
      return keys.map((k) => {
        const item = itemOf(found, k);
        return live(item, nowMs) ? decode(item) : null;
      });
    },

    /** Written only if newer than what is stored, by the source's order (putInOrder). */
    putDated(
      groupId: string,
      locationId: string,
      kind: StoredDatedKind,
      businessDate: string,
      stored: { body: Uint8Array; ttl: number; loadedAt: string },
      order: SourceOrder,
    ): Promise<OrderedOutcome> {
      return putInOrder(db, { ...shiftqKeys.dated(groupId, locationId, kind, businessDate), ...stored }, order);
    },

    async getCurrent<K extends CurrentKind>(groupId: string, locationId: string, kind: K): Promise<Stored<CurrentData[K]> | null> {
      const item = await getItem(db, shiftqKeys.current(groupId, locationId, kind));
      return item ? decode<CurrentData[K]>(item) : null;
    },

    putCurrent(
      groupId: string,
      locationId: string,
      kind: CurrentKind,
      stored: { body: Uint8Array; loadedAt: string },
      order: SourceOrder,
    ): Promise<OrderedOutcome> {
      return putInOrder(db, { ...shiftqKeys.current(groupId, locationId, kind), ...stored }, order);
    },
  };
}
