import * as v from 'valibot';
import { parseCompactDate } from '#contract/business-date';
import { id, isoTimestamp } from '#contract/schemas/common';
import { hhmm } from '#contract/schemas/matriq';
import { parseInput } from '#contract/validation';
import type { StopCommand } from '#data/matriq';
import type { Store } from '#data/repositories';
import type { OrderedOutcome, SourceOrder } from '#data/store';
import { AdminInputError, AdminNotFoundError, fitsOneItem } from '#domain/inputs';
import { count } from '#platform/observability';
import { stopTransition, StopTransitionError } from '#lambdas/matriq/stop-transitions';
import { requireLocation, type Operation } from './operation.js';

/**
 * Display devices as the device platform sends them: a location's device state (its gateway, devices and Auto
 * Scheduler, whole), the gateway's emergency-stop results and which providers' feeds the location reaches. Each is
 * validated whole, then written in its source's order; `matriq load` and `matriq stop-result` (the admin API,
 * lambdas/producers/loads/matriq.ts) run the same code.
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

/** A state's fields besides the location its path (or its file entry) names. */
const stateFields = {
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
};

/** A location's device state: each device once, the scheduler's devices among them, fitting the one item it is stored as. */
export const stateRecord = v.pipe(
  v.strictObject({ groupId: id, locationId: id, ...stateFields }),
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
type StateRecord = v.InferOutput<typeof stateRecord>;

/**
 * A valid state, written in the source's order. The scheduler's status and draft times are when the source observed
 * them (the update's source time); `updatedAt` when the service stored it.
 */
export function writeState(store: Store, { scheduler, ...rest }: StateRecord, order: SourceOrder, now: number): Promise<OrderedOutcome> {
  const observed = new Date(order.sourceMs).toISOString();
  return store.matriq.putInOrder(
    {
      ...rest,
      updatedAt: new Date(now).toISOString(),
      scheduler: { ...scheduler, statusUpdatedAt: observed, publishedDraftUpdatedAt: scheduler.draft ? observed : null },
    },
    order,
  );
}

const stopResultFields = { status: v.picklist(['applied', 'failed']) };
/** A stop result's body where its path names the command (this API's route, the admin API's). */
export const stopResultBody = v.strictObject(stopResultFields);
const stopResultInput = v.strictObject({
  commandId: v.pipe(v.string(), v.regex(/^cmd_[0-9a-f]{32}$/, 'must be a command id such as cmd_0123…')),
  ...stopResultFields,
});
type StopResultInput = v.InferInput<typeof stopResultInput>;

/**
 * The gateway's report on a stop command: queued → applied or failed (`applied`: this report moved it). Its
 * `completedAt` is when the source observed the result, never before the command was requested (a gateway's clock
 * behind the service's). An applied stop also sets the Auto Scheduler's runtime (stopped, emergency stop active,
 * lastStopAt) in the order of the report that completed the command (markStopped). The same report again is a
 * `duplicate` that changes nothing but what an interrupted earlier attempt left undone (the scheduler's stop, in that
 * first report's order); a contradicting one is refused.
 */
export async function recordStopResult(
  store: Store,
  input: StopResultInput,
  order: SourceOrder,
): Promise<{ command: StopCommand; outcome: Exclude<OrderedOutcome, 'stale'> }> {
  const { commandId, status } = parseInput(stopResultInput, input);
  const found = await store.matriq.commandResult(commandId);
  if (!found) throw new AdminNotFoundError(`command ${commandId} does not exist`);
  const completedAt = new Date(Math.max(order.sourceMs, Date.parse(found.command.requestedAt))).toISOString();
  let outcome: 'applied' | 'duplicate' = 'duplicate';
  try {
    if (stopTransition(found.command.status, status) === 'complete') {
      if (await store.matriq.completeCommand(commandId, status, completedAt, order)) outcome = 'applied';
      // Another report won the race: judge this one against what it wrote.
      else stopTransition((await store.matriq.getCommand(commandId))!.status, status);
    }
  } catch (err) {
    if (err instanceof StopTransitionError) throw new AdminInputError(`command ${commandId}: ${err.message}`);
    throw err;
  }
  const { command, resultOrder } = (await store.matriq.commandResult(commandId))!;
  // A command completed before results kept their order has none: this report's stands for it.
  if (status === 'applied') await store.matriq.markStopped(command.groupId, command.locationId, command.completedAt!, resultOrder ?? order);
  return { command, outcome };
}

/** recordStopResult, counted once per command: by the report that moved it (a repeat is a duplicate). */
export async function reportStopResult(
  deps: { store: Store; metrics?: Parameters<typeof count>[0]['metrics'] },
  input: StopResultInput,
  order: SourceOrder,
) {
  const result = await recordStopResult(deps.store, input, order);
  if (result.outcome === 'applied') count(deps, input.status === 'applied' ? 'StopCommandsApplied' : 'StopCommandsFailed');
  return result;
}

/** A producer's data, whole, under the ids its path names: a body naming them again is refused. */
const MATRIQ_DATA = {
  state: v.strictObject(stateFields),
  stopResult: stopResultBody,
  /** Providers the location's environment does not list (yet) are kept, and shown once it lists them. */
  providers: v.strictObject({
    providers: v.pipe(
      v.array(v.strictObject({ id: text, available: v.boolean(), availabilityState: text })),
      v.maxLength(50),
      v.check((list) => new Set(list.map((p) => p.id)).size === list.length, 'must not repeat a provider id'),
    ),
  }),
};

/** The device platform's routes. */
export const MATRIQ_OPERATIONS = {
  putMatriqState: async (deps, { groupId, locationId }, data, order) => {
    await requireLocation(deps, groupId!, locationId!);
    const record = parseInput(stateRecord, { groupId, locationId, ...parseInput(MATRIQ_DATA.state, data) });
    return { outcome: await writeState(deps.store, record, order, order.now), records: 1 };
  },
  putMatriqProviders: async (deps, { groupId, locationId }, data, order) => {
    await requireLocation(deps, groupId!, locationId!);
    const { providers } = parseInput(MATRIQ_DATA.providers, data);
    const availability = { groupId: groupId!, locationId: locationId!, updatedAt: new Date(order.now).toISOString(), providers };
    return { outcome: await deps.store.sports.putAvailability(availability, order), records: providers.length };
  },
  putMatriqStopResult: async (deps, { commandId }, data, order) => {
    const { status } = parseInput(MATRIQ_DATA.stopResult, data);
    const { outcome } = await reportStopResult(deps, { commandId: commandId!, status }, order);
    return { outcome, records: 1 };
  },
} satisfies Record<string, Operation>;
