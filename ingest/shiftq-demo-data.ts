import { loadShiftq, type ShiftqLoadInput } from '#lambdas/producers/loads/shiftq';
import {
  activeBusinessDate,
  addDays,
  businessDayEndMs,
  businessDayStartMs,
  formatCompactDate,
  formatIsoDate,
  parseCompactDate,
} from '#contract/business-date';
import type { Location } from '#data/locations';
import type { IngestStore } from '#lambdas/producers/loads/store';
import type { KitchenInput } from '#lambdas/shiftq/inputs';
import { round2 } from '#domain/rounding';
import { seededRandom } from '#ingest/seeded-random';

/**
 * Deterministic demo data for shiftq, relative to `now`: the same location
 * and instant always give the same data. Used by `npm start` seeding, tests
 * and the kitchen benchmark.
 */

function seedOf(text: string): number {
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
}

const iso = (ms: number) => new Date(ms).toISOString();
const MINUTE = 60_000;

const STATIONS: KitchenInput['stations'] = [
  { id: 'grill', name: 'Grill', kind: 'prep', includeWithExpediter: true, expoRouting: 'expo' },
  { id: 'fry', name: 'Fry', kind: 'prep', includeWithExpediter: true, expoRouting: 'expo' },
  { id: 'salad', name: 'Salad', kind: 'prep', includeWithExpediter: false, expoRouting: 'direct' },
  { id: 'expo', name: 'Expo', kind: 'expediter', includeWithExpediter: true, expoRouting: 'expo' },
  { id: 'pass', name: 'Pass', kind: 'expediter', includeWithExpediter: true, expoRouting: 'expo' },
];
const CATEGORIES = ['Food', 'Bar Snacks', 'Dessert'];

/** A kitchen day of `ticketCount` tickets fired across the business day, none after `untilMs`. */
export function demoKitchenDay(timeZone: string, businessDate: string, ticketCount: number, untilMs: number, seed = 1): KitchenInput {
  const rand = seededRandom(seedOf(`${timeZone}|${businessDate}|${seed}`));
  const start = businessDayStartMs(timeZone, businessDate);
  const end = Math.min(businessDayEndMs(timeZone, businessDate), untilMs);
  const span = Math.max(1, end - start);
  const tickets: KitchenInput['tickets'] = [];
  for (let i = 0; i < ticketCount; i++) {
    const fired = start + Math.floor(rand() * span);
    const prep = STATIONS.filter((s) => s.kind === 'prep' && rand() < 0.6).map((s) => {
      const done = fired + Math.floor((4 + rand() * 20) * MINUTE);
      return { stationId: s.id, itemCount: 1 + Math.floor(rand() * 4), doneAt: done <= untilMs ? iso(done) : null };
    });
    if (prep.length === 0) prep.push({ stationId: 'grill', itemCount: 1, doneAt: null });
    const readyAt = Math.max(fired, ...prep.map((p) => (p.doneAt ? Date.parse(p.doneAt) : fired)));
    const level1 = readyAt + Math.floor((0.5 + rand() * 4) * MINUTE);
    const expo: KitchenInput['tickets'][number]['expo'] = [
      {
        fulfillmentLevel: 1,
        stationId: 'expo',
        itemCount: prep.reduce((n, p) => n + p.itemCount, 0),
        clearedAt: prep.every((p) => p.doneAt) && level1 <= untilMs ? iso(level1) : null,
      },
    ];
    if (rand() < 0.3) {
      const level2 = level1 + Math.floor((0.5 + rand() * 2) * MINUTE);
      expo.push({
        fulfillmentLevel: 2,
        stationId: 'pass',
        itemCount: 1,
        clearedAt: expo[0]!.clearedAt && level2 <= untilMs ? iso(level2) : null,
      });
    }
    tickets.push({ id: `t${i + 1}`, firedAt: iso(fired), salesCategory: CATEGORIES[Math.floor(rand() * CATEGORIES.length)]!, prep, expo });
  }
  return {
    updatedAt: iso(Math.min(untilMs, businessDayEndMs(timeZone, businessDate))),
    status: { state: 'ok', httpStatus: 200 },
    stations: STATIONS,
    trackedPrepStations: null,
    trackedSalesCategories: null,
    tickets,
  };
}

const PEOPLE = [
  ['e1', 'Avery Stone', 'Server', 'SRV', false],
  ['e2', 'Jordan Lee', 'Server', 'SRV', false],
  ['e3', 'Sam Patel', 'Bartender', 'BAR', false],
  ['e4', 'Riley Chen', 'Kitchen', 'LINE', false],
  ['e5', 'Morgan Diaz', 'Kitchen', 'LINE', false],
  ['e6', 'Casey Novak', 'Management', 'MGR', true],
  ['e7', 'Quinn Baker', 'Host', 'HOST', false],
] as const;

function locationLoad(location: Location, now: number): ShiftqLoadInput {
  const zone = location.timezone;
  const today = activeBusinessDate(zone, now);
  const dayOf = (offset: number) => formatCompactDate(addDays(parseCompactDate(today)!, -offset));
  const rand = seededRandom(seedOf(`${location.id}|${today}`));
  const currency = zone === 'Europe/London' ? 'GBP' : zone === 'Australia/Sydney' ? 'AUD' : 'USD';
  const entries: ShiftqLoadInput['entries'] = [];

  // Eight days back, so yesterday also has its same-weekday prior-week compare.
  for (let offset = 0; offset <= 8; offset++) {
    const date = dayOf(offset);
    const until = Math.min(now, businessDayEndMs(zone, date));
    const start = businessDayStartMs(zone, date);
    const fraction = Math.min(1, (until - start) / (businessDayEndMs(zone, date) - start));
    const gross = round2((6000 + rand() * 6000) * fraction);
    const discounts = round2(gross * (0.02 + rand() * 0.04));
    const voids = round2(gross * rand() * 0.02);
    const net = round2(gross - discounts - voids);
    const orders = Math.round(gross / 38);
    entries.push({
      kind: 'sales',
      businessDate: date,
      data: {
        updatedAt: iso(until),
        currency,
        grossSales: gross,
        netSales: net,
        discounts,
        voids,
        refunds: round2(rand() * 40),
        tax: round2(net * 0.08),
        tips: round2(net * 0.15),
        orderCount: orders,
        guestCount: Math.round(orders * 1.8),
        hourly: [0, 1, 2].map((h) => ({
          hourStartIso: iso(start + (8 + h * 4) * 60 * MINUTE - MINUTE),
          netSales: round2(net / 3),
          orderCount: Math.round(orders / 3),
        })),
        categories: CATEGORIES.map((c, i) => ({
          category: c,
          netSales: round2(net * [0.6, 0.3, 0.1][i]!),
          quantity: Math.round(orders * [1.4, 0.7, 0.3][i]!),
        })),
        employees: PEOPLE.filter((p) => p[2] === 'Server' || p[2] === 'Bartender').map(([id, name]) => ({
          employeeId: id,
          employeeName: name,
          netSales: round2(net * (0.1 + rand() * 0.2)),
        })),
      },
    });
    entries.push({
      kind: 'labor',
      businessDate: date,
      data: {
        updatedAt: iso(until),
        currency,
        roles: ['Server', 'Bartender', 'Kitchen', 'Management', 'Host'].map((role) => {
          const hours = round2((8 + rand() * 16) * fraction);
          return {
            roleGroup: role,
            regularHours: hours,
            overtimeHours: round2(rand() < 0.2 ? rand() * 3 : 0),
            laborCost: round2(hours * (16 + rand() * 10)),
            employeeCount: 1 + Math.floor(rand() * 3),
          };
        }),
      },
    });
    if (offset <= 1)
      entries.push({ kind: 'kitchen', businessDate: date, data: demoKitchenDay(zone, date, Math.round(160 * fraction), until) });
  }

  // Today's staff: shifts began about two hours before `now` (not before the business day), punches around them.
  const shiftStart = Math.max(businessDayStartMs(zone, today), Math.floor((now - 120 * MINUTE) / (15 * MINUTE)) * 15 * MINUTE);
  entries.push({
    kind: 'clockIns',
    businessDate: today,
    data: {
      asOf: iso(now),
      entries: PEOPLE.map(([id, name, role, job, manager], i) => {
        const scheduled = i === 6 ? null : { start: iso(shiftStart), end: iso(shiftStart + 8 * 60 * MINUTE), jobCode: job };
        const offsetMin = [-4, 12, -20, 0, 2, -1, 0][i]!;
        const punchAt = shiftStart + offsetMin * MINUTE;
        const punch = i === 4 || punchAt > now ? null : { jobCode: i === 3 ? 'PREP' : job, clockedInAt: iso(punchAt), clockedOutAt: null };
        return { employeeId: id, employeeName: name, roleGroup: role, isManager: manager, scheduled, punch };
      }),
    },
  });
  entries.push({
    kind: 'employees',
    data: {
      updatedAt: iso(now),
      employees: PEOPLE.map(([id, name, , job, manager], i) => ({
        id,
        displayName: name,
        jobCodes: [job],
        isManager: manager,
        hiredOn: formatIsoDate(addDays(parseCompactDate(today)!, -(i < 2 ? 10 + i * 5 : 200 + i * 30))),
      })),
      jobs: [
        { code: 'SRV', title: 'Server', roleGroup: 'Server' },
        { code: 'BAR', title: 'Bartender', roleGroup: 'Bartender' },
        { code: 'LINE', title: 'Line cook', roleGroup: 'Kitchen' },
        { code: 'PREP', title: 'Prep cook', roleGroup: 'Kitchen' },
        { code: 'MGR', title: 'Manager', roleGroup: 'Management' },
        { code: 'HOST', title: 'Host', roleGroup: 'Host' },
      ],
      shifts: PEOPLE.slice(0, 6).map(([id, , , job]) => ({
        id: `s-${id}`,
        employeeId: id,
        jobCode: job,
        start: iso(shiftStart),
        end: iso(shiftStart + 8 * 60 * MINUTE),
      })),
      timeEntries: [],
    },
  });
  entries.push({
    kind: 'posMenu',
    data: {
      updatedAt: iso(now - 60 * MINUTE),
      stockUpdatedAt: iso(now - 3 * MINUTE),
      currency,
      groups: [
        {
          id: 'mains',
          name: 'Mains',
          items: [
            { id: 'burger', name: 'House Burger', price: 16, soldOut: false, stockQuantity: null },
            { id: 'fish', name: 'Fish & Chips', price: 19, soldOut: rand() < 0.5, stockQuantity: 0 },
            { id: 'salad', name: 'Market Salad', price: 13, soldOut: false, stockQuantity: 12 },
          ],
        },
        { id: 'desserts', name: 'Desserts', items: [{ id: 'pie', name: 'Apple Pie', price: 8, soldOut: true, stockQuantity: 0 }] },
      ],
    },
  });
  const days = [0, 1, 2].map((d) => addDays(parseCompactDate(today)!, d));
  entries.push({
    kind: 'reservations',
    data: {
      venueLabel: location.name,
      asOf: iso(now),
      days: days.map((d, i) => ({
        dayKey: formatIsoDate(d),
        label: i === 0 ? 'Today' : i === 1 ? 'Tomorrow' : formatIsoDate(d),
        items: Array.from({ length: 2 + i }, (_, n) => ({
          id: `r-${formatCompactDate(d)}-${n + 1}`,
          displayTime: `${6 + n}:${n % 2 ? '30' : '00'} PM`,
          guestName: ['Harper', 'Ellis', 'Rowan', 'Blake'][n % 4]!,
          partySize: 2 + ((n + i) % 5),
          notes: n === 0 ? 'Window table' : '',
        })),
      })),
    },
  });
  const providers = ['google', 'yelp', 'tripadvisor', 'opentable'] as const;
  entries.push({
    kind: 'reviews',
    data: {
      reviews: Array.from({ length: 12 }, (_, n) => {
        const created = now - (n * 37 + 5) * 60 * MINUTE;
        const provider = providers[n % providers.length]!;
        return {
          id: `rv-${location.id}-${n + 1}`,
          provider,
          rating: 1 + ((n * 3 + 2) % 5),
          reviewerName: ['Dana K.', 'Lee M.', 'Pat R.', 'Chris T.'][n % 4]!,
          text: n % 3 ? 'Great food and friendly staff.' : 'A bit slow tonight, but the burger was excellent.',
          createdAt: iso(created),
          updatedAt: iso(created),
          reviewUrl: `https://reviews.example.com/${provider}/${location.id}/${n + 1}`,
        };
      }),
    },
  });
  return { groupId: location.groupId, locationId: location.id, entries };
}

/** Seeds every location of the group that has shiftq enabled. */
export async function seedShiftq(store: IngestStore, now: number, groupId = 'demo-group'): Promise<void> {
  const locations = (await store.locations.list(groupId)).filter((l) => l.modulesEnabled.shiftq);
  await Promise.all(locations.map((location) => loadShiftq(store, locationLoad(location, now), now)));
}
