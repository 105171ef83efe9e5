import * as v from 'valibot';
import type { Store } from '#data/repositories';
import { requireLocations } from './locations-exist.js';
import { AdminInputError } from '#domain/inputs';
import {
  duplicates,
  environmentProblems,
  environmentRecord,
  scheduleProblems,
  scheduleRecord,
  viewingProblems,
  viewingRecord,
  writeSports,
} from '#lambdas/producers/sports';
import { parseInput } from '#contract/validation';

/**
 * Sports ingest: league schedules by date, location provider environments and
 * location viewing data. The whole file is validated (shapes, references,
 * locations, and that each schedule, environment and viewing day fits the one
 * item it is stored as) before anything is written.
 */

/** A list of records each stored as one item; none given is none. */
const records = <S extends v.GenericSchema>(schema: S) => v.optional(v.array(schema), () => []);

export const sportsFile = v.strictObject({
  schedules: records(scheduleRecord),
  environments: records(environmentRecord),
  viewing: records(viewingRecord),
});

export type SportsFile = v.InferInput<typeof sportsFile>;

/**
 * Validates the whole file against itself and the stored data, then writes it by the producers' rules
 * (lambdas/producers/sports.ts). The load is the source, observed when it runs: each record's place in the file is
 * its sequence.
 */
export async function loadSports(store: Store, input: unknown, now: number) {
  const file = parseInput(sportsFile, input);
  const problems: string[] = [];
  const dupDates = duplicates(file.schedules.map((s) => s.date));
  if (dupDates.length) problems.push(`schedules repeat dates ${dupDates.join(', ')}`);
  problems.push(...file.schedules.flatMap(scheduleProblems), ...file.environments.flatMap(environmentProblems));
  // Viewing data must name events of that date's schedule (in this file, else already stored).
  const scheduleIds = new Map(file.schedules.map((s) => [s.date, new Set(s.events.map((e) => e.id))]));
  for (const viewing of file.viewing) {
    if (!scheduleIds.has(viewing.date)) {
      const stored = await store.sports.getSchedule(viewing.date);
      scheduleIds.set(viewing.date, new Set(stored?.events.map((e) => e.id) ?? []));
    }
    problems.push(...viewingProblems(viewing, scheduleIds.get(viewing.date)!));
  }
  if (problems.length) throw new AdminInputError(problems.join('; '));
  await requireLocations(store, [...file.environments, ...file.viewing]);

  let sequence = 0;
  const order = () => ({ sourceMs: now, sequence: sequence++ });
  for (const s of file.schedules) await writeSports.schedule(store, s, order());
  for (const e of file.environments) await writeSports.environment(store, e, order());
  for (const w of file.viewing) await writeSports.viewing(store, w, order());
  return { schedules: file.schedules.length, environments: file.environments.length, viewing: file.viewing.length };
}
