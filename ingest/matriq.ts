import * as v from 'valibot';
import { parseCompactDate } from '#contract/business-date';
import type { StopCommand } from '#data/matriq';
import type { Store } from '#data/repositories';
import { hhmm } from '#contract/schemas/matriq';
import { stopTransition, StopTransitionError } from '#lambdas/matriq/stop-transitions';
import { requireLocations } from './locations-exist.js';
import { AdminInputError, fitsOneItem } from '#domain/inputs';
import { parseInput } from '#contract/validation';
import { id, isoTimestamp } from '#contract/schemas/common';

/**
 * Display-device ingest (what a location's gateway reports) and the gateway's
 * emergency-stop results. Inputs are validated whole before anything is written.
 */

const text = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));
const businessDay = v.pipe(
  v.string(),
  v.check((value) => parseCompactDate(value) !== null, 'must be a real business date YYYYMMDD'),
);

const draft = v.strictObject({
  businessDay,
  published: v.boolean(),
  status: text,
  title: text,
  items: v.pipe(v.array(v.strictObject({ id: text, start: hhmm, end: hhmm, eventTitle: text })), v.maxLength(200)),
});

const locationState = v.pipe(
  v.strictObject({
    groupId: id,
    locationId: id,
    gateway: v.strictObject({ id: text, name: text, model: text, firmwareVersion: text, lastSeenAt: v.nullable(isoTimestamp) }),
    devices: v.pipe(
      v.array(v.strictObject({ id: text, name: text, type: text, zone: text, lastSeenAt: v.nullable(isoTimestamp) })),
      v.maxLength(500),
    ),
    scheduler: v.strictObject({
      deviceIds: v.pipe(v.array(text), v.maxLength(500)),
      running: v.boolean(),
      lastStartAt: v.optional(v.nullable(isoTimestamp), null),
      lastStopAt: v.optional(v.nullable(isoTimestamp), null),
      emergencyStopActive: v.optional(v.boolean(), false),
      draft: v.optional(v.nullable(draft), null),
    }),
  }),
  v.forward(
    v.check(({ devices }) => new Set(devices.map((d) => d.id)).size === devices.length, 'must not repeat a device id'),
    ['devices'],
  ),
  v.forward(
    v.check(
      ({ devices, scheduler }) => scheduler.deviceIds.every((d) => devices.some((device) => device.id === d)),
      (issue) => {
        const { devices, scheduler } = issue.input as { devices: { id: string }[]; scheduler: { deviceIds: string[] } };
        return `names devices not among devices: ${scheduler.deviceIds.filter((d) => !devices.some((device) => device.id === d)).join(', ')}`;
      },
    ),
    ['scheduler', 'deviceIds'],
  ),
  fitsOneItem(),
);

export const matriqFile = v.strictObject({ locations: v.pipe(v.array(locationState), v.minLength(1)) });

/** Replaces each listed location's devices, gateway and Auto Scheduler state. */
export async function loadMatriq(store: Store, input: unknown, now: number) {
  const { locations } = parseInput(matriqFile, input);
  await requireLocations(store, locations);
  const at = new Date(now).toISOString();
  for (const { scheduler, ...rest } of locations) {
    await store.matriq.put({
      ...rest,
      updatedAt: at,
      scheduler: { ...scheduler, statusUpdatedAt: at, publishedDraftUpdatedAt: scheduler.draft ? at : null },
    });
  }
  return { locations: locations.length };
}

const stopResultInput = v.strictObject({
  commandId: v.pipe(v.string(), v.regex(/^cmd_[0-9a-f]{32}$/, 'must be a command id such as cmd_0123…')),
  status: v.picklist(['applied', 'failed']),
});
export type StopResultInput = v.InferInput<typeof stopResultInput>;

/**
 * The gateway's report on a stop command: queued → applied or failed. An
 * applied stop also sets the Auto Scheduler's runtime (stopped, emergency
 * stop active, lastStopAt). Repeating the same report is harmless (and
 * completes a state update an earlier attempt may not have finished); a
 * contradicting one is refused.
 */
export async function recordStopResult(store: Store, input: StopResultInput, now: number): Promise<StopCommand> {
  const { commandId, status } = parseInput(stopResultInput, input);
  let command = await store.matriq.getCommand(commandId);
  if (!command) throw new AdminInputError(`command ${commandId} does not exist`);
  const at = new Date(now).toISOString();
  try {
    if (stopTransition(command.status, status) === 'complete' && !(await store.matriq.completeCommand(commandId, status, at))) {
      // Another report won the race: judge this one against what it wrote.
      command = (await store.matriq.getCommand(commandId))!;
      stopTransition(command.status, status);
    }
  } catch (err) {
    if (err instanceof StopTransitionError) throw new AdminInputError(`command ${commandId}: ${err.message}`);
    throw err;
  }
  command = (await store.matriq.getCommand(commandId))!;
  if (status === 'applied') await store.matriq.markStopped(command.groupId, command.locationId, command.completedAt!);
  return command;
}
