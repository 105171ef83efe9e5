import * as v from 'valibot';
import { realIsoDate, SPORTS_LOGO_NAME } from '#contract/schemas/requests';
import { id, isoTimestamp } from '#contract/schemas/common';
import { parseInput } from '#contract/validation';
import type { Store } from '#data/repositories';
import type { OrderedOutcome, SourceOrder } from '#data/store';
import { AdminInputError, fitsOneItem } from '#domain/inputs';
import { requireLocation, type Operation } from './operation.js';

/**
 * Sports data as the sports sync sends it: a date's league schedule (the same for every location), a location's
 * provider environment (providers with their lineups, packages, regional networks) and its viewing data by date.
 * Each record is validated whole (its shape, its own references, that it fits the one item it is stored as) and
 * written in its source's order (putInOrder).
 */

const text = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));
const label = v.pipe(v.string(), v.maxLength(200));
const eventId = v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, 'must be 1-128 letters, digits, "-" or "_"'));
const image = v.optional(v.nullable(v.pipe(v.string(), v.regex(SPORTS_LOGO_NAME, 'must be an asset file name such as nfl.svg'))), null);
const named = v.strictObject({ id: text, name: text });
const typed = v.strictObject({ ...named.entries, type: text });

const eventInput = v.strictObject({
  id: eventId,
  name: text,
  startsAt: isoTimestamp,
  status: v.optional(
    v.strictObject({
      state: text,
      label,
      detail: label,
      period: v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.maxValue(1000)),
      clock: label,
    }),
    () => ({ state: 'scheduled', label: 'Scheduled', detail: '', period: 0, clock: '' }),
  ),
  sport: named,
  league: v.strictObject({ ...named.entries, abbreviation: text, image }),
  participants: v.pipe(
    v.array(
      v.strictObject({
        type: text,
        id: text,
        name: text,
        role: text,
        image,
        score: v.optional(label, ''),
        winner: v.optional(v.boolean(), false),
      }),
    ),
    v.maxLength(50),
  ),
  eventImage: image,
  venue: v.strictObject({ ...named.entries, city: label, state: label, country: label, indoor: v.boolean() }),
});

const providerInput = v.strictObject({
  id: text,
  name: text,
  type: text,
  available: v.boolean(),
  availabilityState: text,
  lineupId: text,
  market: text,
  logo: image,
  channels: v.pipe(v.array(v.strictObject({ number: text, name: text, type: text })), v.maxLength(2000)),
});

const viewingOptionInput = v.strictObject({ provider: typed, network: typed, channel: text, available: v.boolean() });

/** A record's fields besides the ids and date its path (or its file entry) names. */
const scheduleFields = { events: v.pipe(v.array(eventInput), v.maxLength(1000)) };
const environmentFields = {
  providers: v.pipe(v.array(providerInput), v.maxLength(50)),
  regionalSportsNetworks: v.optional(v.pipe(v.array(v.strictObject({ id: text, name: text, channel: text })), v.maxLength(100)), () => []),
  programmingPackageId: v.optional(v.nullable(text), null),
  packages: v.pipe(v.array(v.strictObject({ id: text, name: text, type: text, image, enabled: v.boolean() })), v.maxLength(200)),
};
const viewingFields = { options: v.record(eventId, v.pipe(v.array(viewingOptionInput), v.maxLength(50))) };

/** The records, each fitting the one item it is stored as. */
export const scheduleRecord = v.pipe(v.strictObject({ date: realIsoDate, ...scheduleFields }), fitsOneItem());
export const environmentRecord = v.pipe(v.strictObject({ groupId: id, locationId: id, ...environmentFields }), fitsOneItem());
export const viewingRecord = v.pipe(v.strictObject({ groupId: id, locationId: id, date: realIsoDate, ...viewingFields }), fitsOneItem());
type ScheduleRecord = v.InferOutput<typeof scheduleRecord>;
type EnvironmentRecord = v.InferOutput<typeof environmentRecord>;
type ViewingRecord = v.InferOutput<typeof viewingRecord>;

/** A producer's data, whole, under the ids its path names: a body naming them again is refused. */
const SPORTS_DATA = {
  schedule: v.strictObject(scheduleFields),
  environment: v.strictObject(environmentFields),
  viewing: v.strictObject(viewingFields),
};

export const duplicates = (values: string[]) => [...new Set(values.filter((value, i) => values.indexOf(value) !== i))];

/** What a schedule's shape cannot say of it. */
export const scheduleProblems = (s: ScheduleRecord): string[] => {
  const dup = duplicates(s.events.map((e) => e.id));
  return dup.length ? [`schedule ${s.date} repeats event ids ${dup.join(', ')}`] : [];
};

/** What an environment's shape cannot say of it. */
export function environmentProblems(e: EnvironmentRecord): string[] {
  const problems: string[] = [];
  const dup = duplicates(e.packages.map((p) => p.id));
  if (dup.length) problems.push(`${e.locationId}: packages repeat ids ${dup.join(', ')}`);
  if (e.programmingPackageId && !e.packages.some((p) => p.id === e.programmingPackageId))
    problems.push(`${e.locationId}: programmingPackageId ${e.programmingPackageId} is not one of its packages`);
  return problems;
}

/** Viewing data names events of its date's schedule (`events`: their ids). */
export function viewingProblems(viewing: ViewingRecord, events: ReadonlySet<string>): string[] {
  const unknown = Object.keys(viewing.options).filter((eventId) => !events.has(eventId));
  return unknown.length ? [`viewing ${viewing.locationId} ${viewing.date}: events not in that date's schedule: ${unknown.join(', ')}`] : [];
}

const refuseAny = (problems: string[]) => {
  if (problems.length) throw new AdminInputError(problems.join('; '));
};

/**
 * Each record's write, once it is valid, in the source's order. Its `updatedAt` is when the source observed it: the
 * health rules compare viewing data with the lineup it was computed for (PROVIDER_DATA_STALE), which only the
 * source's times can say when updates arrive out of order.
 */
const observed = (order: SourceOrder) => new Date(order.sourceMs).toISOString();
export const writeSports = {
  schedule: (store: Store, s: ScheduleRecord, order: SourceOrder): Promise<OrderedOutcome> =>
    store.sports.putSchedule({ ...s, updatedAt: observed(order) }, order),
  environment: (store: Store, e: EnvironmentRecord, order: SourceOrder): Promise<OrderedOutcome> =>
    store.sports.putProvider({ ...e, updatedAt: observed(order) }, order),
  viewing: (store: Store, w: ViewingRecord, order: SourceOrder): Promise<OrderedOutcome> =>
    store.sports.putViewing({ ...w, updatedAt: observed(order) }, order),
};

/** A producer's schedule of `date`: validated, then written in order. */
async function putSchedule(store: Store, date: string, data: unknown, order: SourceOrder) {
  const record = parseInput(scheduleRecord, { date, ...parseInput(SPORTS_DATA.schedule, data) });
  refuseAny(scheduleProblems(record));
  return writeSports.schedule(store, record, order);
}

/** A producer's provider environment of a location (which exists): validated, then written in order. */
async function putEnvironment(store: Store, groupId: string, locationId: string, data: unknown, order: SourceOrder) {
  const record = parseInput(environmentRecord, { groupId, locationId, ...parseInput(SPORTS_DATA.environment, data) });
  refuseAny(environmentProblems(record));
  return writeSports.environment(store, record, order);
}

/** A producer's viewing data of a location (which exists) for `date`: its events must be in that date's stored schedule. */
async function putViewing(store: Store, groupId: string, locationId: string, date: string, data: unknown, order: SourceOrder) {
  const record = parseInput(viewingRecord, { groupId, locationId, date, ...parseInput(SPORTS_DATA.viewing, data) });
  const schedule = await store.sports.getSchedule(date);
  refuseAny(viewingProblems(record, new Set(schedule?.events.map((e) => e.id) ?? [])));
  return writeSports.viewing(store, record, order);
}

/** The sports sync's routes. */
export const SPORTS_OPERATIONS = {
  putSportsSchedule: async (deps, { date }, data, order) => ({
    outcome: await putSchedule(deps.store, date!, data, order),
    records: 1,
  }),
  putSportsEnvironment: async (deps, { groupId, locationId }, data, order) => {
    await requireLocation(deps, groupId!, locationId!);
    return { outcome: await putEnvironment(deps.store, groupId!, locationId!, data, order), records: 1 };
  },
  putSportsViewing: async (deps, { groupId, locationId, date }, data, order) => {
    await requireLocation(deps, groupId!, locationId!);
    return { outcome: await putViewing(deps.store, groupId!, locationId!, date!, data, order), records: 1 };
  },
} satisfies Record<string, Operation>;
