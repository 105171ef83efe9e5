import * as z from 'zod';
import type { Store } from '#data/repositories';
import { isRealIsoDate, REAL_ISO_DATE_RULE, ISO_DATE, SPORTS_LOGO_NAME } from '#contract/schemas/requests';
import { requireLocations } from './locations-exist.js';
import { AdminInputError, fitsOneItem, parseInput } from '#domain/inputs';
import { id } from '#contract/schemas/common';

/** The request rule of a programming date, in this file's schema library. */
const realIsoDate = z.string().regex(ISO_DATE, REAL_ISO_DATE_RULE).refine(isRealIsoDate, 'is not a real calendar date');

/**
 * Sports ingest: league schedules by date, location provider environments and
 * location viewing data. The whole file is validated (shapes, references,
 * locations, and that each schedule, environment and viewing day fits the one
 * item it is stored as) before anything is written.
 */

const text = z.string().trim().min(1).max(200);
const label = z.string().max(200);
const eventId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, 'use 1-128 letters, digits, "-" or "_"');
const image = z.string().regex(SPORTS_LOGO_NAME, 'an asset file name such as nfl.svg').nullable().default(null);
const named = z.object({ id: text, name: text }).strict();
const typed = named.extend({ type: text }).strict();

const eventInput = z
  .object({
    id: eventId,
    name: text,
    startsAt: z.string().datetime({ offset: true }),
    status: z
      .object({ state: text, label, detail: label, period: z.number().int().min(0).max(1000), clock: label })
      .strict()
      .default({ state: 'scheduled', label: 'Scheduled', detail: '', period: 0, clock: '' }),
    sport: named,
    league: named.extend({ abbreviation: text, image }).strict(),
    participants: z
      .array(
        z
          .object({ type: text, id: text, name: text, role: text, image, score: label.default(''), winner: z.boolean().default(false) })
          .strict(),
      )
      .max(50),
    eventImage: image,
    venue: named.extend({ city: label, state: label, country: label, indoor: z.boolean() }).strict(),
  })
  .strict();

const providerInput = z
  .object({
    id: text,
    name: text,
    type: text,
    available: z.boolean(),
    availabilityState: text,
    lineupId: text,
    market: text,
    logo: image,
    channels: z.array(z.object({ number: text, name: text, type: text }).strict()).max(2000),
  })
  .strict();

const viewingOptionInput = z
  .object({ provider: typed, network: typed, channel: text, available: z.boolean() })
  .strict();

export const sportsFile = z
  .object({
    schedules: z.array(z.object({ date: realIsoDate, events: z.array(eventInput).max(1000) }).strict().superRefine(fitsOneItem)).default([]),
    environments: z
      .array(
        z
          .object({
            groupId: id,
            locationId: id,
            providers: z.array(providerInput).max(50),
            regionalSportsNetworks: z.array(z.object({ id: text, name: text, channel: text }).strict()).max(100).default([]),
            programmingPackageId: text.nullable().default(null),
            packages: z.array(z.object({ id: text, name: text, type: text, image, enabled: z.boolean() }).strict()).max(200),
          })
          .strict()
          .superRefine(fitsOneItem),
      )
      .default([]),
    viewing: z
      .array(
        z
          .object({
            groupId: id,
            locationId: id,
            date: realIsoDate,
            options: z.record(eventId, z.array(viewingOptionInput).max(50)),
          })
          .strict()
          .superRefine(fitsOneItem),
      )
      .default([]),
  })
  .strict();

export type SportsFile = z.input<typeof sportsFile>;

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
