import * as v from 'valibot';
import type { Store } from '#data/repositories';
import { requireLocations } from './locations-exist.js';
import { stateRecord, writeState } from '#lambdas/producers/matriq';
import { parseInput } from '#contract/validation';

/**
 * Display-device ingest: each listed location's gateway, devices and Auto Scheduler state, validated whole (every
 * location, and that each exists) before anything is written.
 */

export const matriqFile = v.strictObject({ locations: v.pipe(v.array(stateRecord), v.minLength(1)) });

/**
 * Replaces each listed location's state by the producers' rules (lambdas/producers/matriq.ts). The load is the
 * source, observed when it runs: each location's place in the file is its sequence.
 */
export async function loadMatriq(store: Store, input: unknown, now: number) {
  const { locations } = parseInput(matriqFile, input);
  await requireLocations(store, locations);
  for (const [sequence, state] of locations.entries()) await writeState(store, state, { sourceMs: now, sequence }, now);
  return { locations: locations.length };
}
