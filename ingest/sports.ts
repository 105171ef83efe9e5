import * as v from 'valibot';
import type { Store } from '#data/repositories';
import { realIsoDate, SPORTS_LOGO_NAME } from '#contract/schemas/requests';
import { requireLocations } from './locations-exist.js';
import { AdminInputError, fitsOneItem } from '#domain/inputs';
import { parseInput } from '#contract/validation';
import { id, isoTimestamp } from '#contract/schemas/common';

/**
 * Sports ingest: league schedules by date, location provider environments and
 * location viewing data. The whole file is validated (shapes, references,
 * locations, and that each schedule, environment and viewing day fits the one
 * item it is stored as) before anything is written.
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

/** A list of values each stored as one item; none given is none. */
const items = <S extends v.GenericSchema<Record<string, unknown>>>(schema: S) =>
  v.optional(v.array(v.pipe(schema, fitsOneItem())), () => []);

export const sportsFile = v.strictObject({
  schedules: items(v.strictObject({ date: realIsoDate, events: v.pipe(v.array(eventInput), v.maxLength(1000)) })),
  environments: items(
    v.strictObject({
      groupId: id,
      locationId: id,
      providers: v.pipe(v.array(providerInput), v.maxLength(50)),
      regionalSportsNetworks: v.optional(
        v.pipe(v.array(v.strictObject({ id: text, name: text, channel: text })), v.maxLength(100)),
        () => [],
      ),
      programmingPackageId: v.optional(v.nullable(text), null),
      packages: v.pipe(v.array(v.strictObject({ id: text, name: text, type: text, image, enabled: v.boolean() })), v.maxLength(200)),
    }),
  ),
  viewing: items(
    v.strictObject({
      groupId: id,
      locationId: id,
      date: realIsoDate,
      options: v.record(eventId, v.pipe(v.array(viewingOptionInput), v.maxLength(50))),
    }),
  ),
});

export type SportsFile = v.InferInput<typeof sportsFile>;

const duplicates = (values: string[]) => [...new Set(values.filter((v, i) => values.indexOf(v) !== i))];

/** Validates the whole file against itself and the stored data, then writes it. */
export async function loadSports(store: Store, input: unknown, now: number) {
  const file = parseInput(sportsFile, input);
  const problems: string[] = [];
  const dupDates = duplicates(file.schedules.map((s) => s.date));
  if (dupDates.length) problems.push(`schedules repeat dates ${dupDates.join(', ')}`);
  for (const s of file.schedules) {
    const dup = duplicates(s.events.map((e) => e.id));
    if (dup.length) problems.push(`schedule ${s.date} repeats event ids ${dup.join(', ')}`);
  }
  for (const e of file.environments) {
    const dup = duplicates(e.packages.map((p) => p.id));
    if (dup.length) problems.push(`${e.locationId}: packages repeat ids ${dup.join(', ')}`);
    if (e.programmingPackageId && !e.packages.some((p) => p.id === e.programmingPackageId)) {
      problems.push(`${e.locationId}: programmingPackageId ${e.programmingPackageId} is not one of its packages`);
    }
  }
  // Viewing data must name events of that date's schedule (in this file, else already stored).
  const scheduleIds = new Map(file.schedules.map((s) => [s.date, new Set(s.events.map((e) => e.id))]));
  for (const v of file.viewing) {
    if (!scheduleIds.has(v.date)) {
      const stored = await store.sports.getSchedule(v.date);
      scheduleIds.set(v.date, new Set(stored?.events.map((e) => e.id) ?? []));
    }
    const unknown = Object.keys(v.options).filter((eid) => !scheduleIds.get(v.date)!.has(eid));
    if (unknown.length) problems.push(`viewing ${v.locationId} ${v.date}: events not in that date's schedule: ${unknown.join(', ')}`);
  }
  if (problems.length) throw new AdminInputError(problems.join('; '));
  await requireLocations(store, [...file.environments, ...file.viewing]);

  const updatedAt = new Date(now).toISOString();
  for (const s of file.schedules) await store.sports.putSchedule({ ...s, updatedAt });
  for (const e of file.environments) await store.sports.putProvider({ ...e, updatedAt });
  for (const v of file.viewing) await store.sports.putViewing({ ...v, updatedAt });
  return { schedules: file.schedules.length, environments: file.environments.length, viewing: file.viewing.length };
}
