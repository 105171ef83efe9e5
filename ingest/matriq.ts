import * as z from 'zod';
import { parseCompactDate } from '#contract/business-date';
import type { StopCommand } from '#data/matriq';
import type { Store } from '#data/repositories';
import { hhmm } from '#contract/schemas/matriq';
import { stopTransition, StopTransitionError } from '#lambdas/matriq/stop-transitions';
import { requireLocations } from './locations-exist.js';
import { AdminInputError, fitsOneItem, parseInput } from '#domain/inputs';
import { id } from '#contract/schemas/common';

/**
 * Display-device ingest (what a location's gateway reports) and the gateway's
 * emergency-stop results. Inputs are validated whole before anything is written.
 */

const text = z.string().trim().min(1).max(200);
const instant = z.string().datetime({ offset: true });
const businessDay = z.string().refine((v) => parseCompactDate(v) !== null, 'a real business date YYYYMMDD');

const locationState = z
  .object({
    groupId: id,
    locationId: id,
    gateway: z
      .object({ id: text, name: text, model: text, firmwareVersion: text, lastSeenAt: instant.nullable() })
      .strict(),
    devices: z
      .array(z.object({ id: text, name: text, type: text, zone: text, lastSeenAt: instant.nullable() }).strict())
      .max(500),
    scheduler: z
      .object({
        deviceIds: z.array(text).max(500),
        running: z.boolean(),
        lastStartAt: instant.nullable().default(null),
        lastStopAt: instant.nullable().default(null),
        emergencyStopActive: z.boolean().default(false),
        draft: z
          .object({
            businessDay,
            published: z.boolean(),
            status: text,
            title: text,
            items: z.array(z.object({ id: text, start: hhmm, end: hhmm, eventTitle: text }).strict()).max(200),
          })
          .strict()
          .nullable()
          .default(null),
      })
      .strict(),
  })
  .strict()
  .superRefine((s, ctx) => {
    const ids = s.devices.map((d) => d.id);
    if (new Set(ids).size !== ids.length) ctx.addIssue({ code: 'custom', path: ['devices'], message: 'device ids repeat' });
    const unknown = s.scheduler.deviceIds.filter((d) => !ids.includes(d));
    if (unknown.length) {
      ctx.addIssue({ code: 'custom', path: ['scheduler', 'deviceIds'], message: `not among devices: ${unknown.join(', ')}` });
    }
  })
  .superRefine(fitsOneItem);

export const matriqFile = z.object({ locations: z.array(locationState).min(1) }).strict();
export type MatriqFile = z.input<typeof matriqFile>;

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

export const stopResultInput = z
  .object({
    commandId: z.string().regex(/^cmd_[0-9a-f]{32}$/, 'a command id such as cmd_0123…'),
    status: z.enum(['applied', 'failed']),
  })
  .strict();
export type StopResultInput = z.input<typeof stopResultInput>;

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
