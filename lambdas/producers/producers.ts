import * as v from 'valibot';
import { parseCompactDate } from '#contract/business-date';
import { ApiError } from '#contract/errors';
import { isId } from '#contract/ids';
import { isoTimestamp } from '#contract/schemas/common';
import { groupsRepo } from '#data/groups';
import { locationsRepo } from '#data/locations';
import { sportsRepo } from '#data/sports';
import type { StoreWith } from '#data/repositories';
import type { OrderedOutcome } from '#data/store';
import { AdminInputError, groupBody, locationBody } from '#domain/inputs';
import { parseInput } from '#contract/validation';
import { pathResolver, routeOfEvent } from '#platform/api-handler';
import { buildDeps, type Deps } from '#platform/deps';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { httpShell, inputRefusal, jsonResponse } from '#platform/http';
import { parseJsonBody } from '#platform/input';
import { SHIFTQ_REPOSITORIES } from '#lambdas/shiftq/store';
import { PRODUCER_ROUTES, type ProducerOperation, type ProducerRoute } from './routes.js';
import { isShiftqResource, prepareShiftq, writeShiftq } from './shiftq.js';
import { putGroup, putLocation } from './venues.js';
import { putEnvironment, putSchedule, putViewing } from './sports.js';
import { CURRENT_KINDS } from '#lambdas/shiftq/inputs';

/**
 * The producer HTTP API (docs/decisions/producers.md): the platform's systems write venue data, one whole update a
 * request, each in its source's order. Who may call which route is decided before this runs (each producer's IAM
 * policy in AWS, its key locally), so it only routes, validates and writes.
 */

export const PRODUCER_REPOSITORIES = { groups: groupsRepo, locations: locationsRepo, sports: sportsRepo, ...SHIFTQ_REPOSITORIES };
export type ProducerStore = StoreWith<typeof PRODUCER_REPOSITORIES>;
export type ProducerDeps = Deps<ProducerStore>;

const resolveProducerPath = pathResolver<ProducerRoute>(PRODUCER_ROUTES);
const NOT_FOUND = 'No producer resource exists at this path.';
/** Every other path parameter is an id, which names nothing when it breaks the id rule; a date is its record's to check (400). */
const DATE_PARAMS = new Set(['businessDate', 'date']);

/**
 * The message of the line each update that reached its route writes, with its producer, operation, outcome
 * (`applied`, `duplicate`, `stale` or `refused`) and, once written, its lag from source time to stored: the
 * per-producer counts and lag are taken from it.
 */
export const PRODUCER_LINE_MESSAGE = 'producer update';

/**
 * How far ahead of this function's clock a source time may be. A source time far in the future would win over
 * every later update of its item, so a producer's clock that runs ahead is refused, not trusted.
 */
export const MAX_SOURCE_AHEAD_MS = 5 * 60 * 1000;

/** Every update: when the source observed it, a tie-break, and the data, whole. Nothing else. */
const update = v.strictObject({
  sourceTime: isoTimestamp,
  sequence: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0)), 0),
  data: v.unknown(),
});

type Answer = { outcome: OrderedOutcome; records: number };

const OPERATIONS: Record<
  ProducerOperation,
  (deps: ProducerDeps, params: Record<string, string>, data: unknown, order: Order) => Promise<Answer>
> = {
  putGroup: async (deps, { groupId }, data, order) => {
    const { outcome } = await putGroup(deps.store, { groupId: groupId!, ...parseInput(groupBody, data) }, order, order.now);
    return { outcome, records: 1 };
  },
  putLocation: async (deps, { groupId, locationId }, data, order) => {
    const fields = parseInput(locationBody, data);
    const { outcome } = await putLocation(deps.store, { ...fields, groupId: groupId!, id: locationId! }, order, order.now);
    return { outcome, records: 1 };
  },
  putSportsSchedule: async (deps, { date }, data, order) => ({
    outcome: await putSchedule(deps.store, date!, data, order, order.now),
    records: 1,
  }),
  putSportsEnvironment: async (deps, { groupId, locationId }, data, order) => {
    await requireLocation(deps, groupId!, locationId!);
    return { outcome: await putEnvironment(deps.store, groupId!, locationId!, data, order, order.now), records: 1 };
  },
  putSportsViewing: async (deps, { groupId, locationId, date }, data, order) => {
    await requireLocation(deps, groupId!, locationId!);
    return { outcome: await putViewing(deps.store, groupId!, locationId!, date!, data, order, order.now), records: 1 };
  },
  putShiftqDay: (deps, params, data, order) => shiftq(deps, params, params.businessDate, data, order),
  putShiftqCurrent: (deps, params, data, order) => shiftq(deps, params, undefined, data, order),
};

type Order = { sourceMs: number; sequence: number; now: number };

async function shiftq(deps: ProducerDeps, params: Record<string, string>, businessDate: string | undefined, data: unknown, order: Order) {
  const { groupId, locationId, resource } = params;
  // The route decides what a resource is: a dated one below a business date, a current one without.
  const current = (CURRENT_KINDS as readonly string[]).includes(resource!);
  if (!isShiftqResource(resource!) || current !== (businessDate === undefined)) throw new ApiError('not_found', NOT_FOUND);
  if (businessDate !== undefined && parseCompactDate(businessDate) === null)
    throw new AdminInputError('businessDate: must be a real calendar date YYYYMMDD');
  const location = await requireLocation(deps, groupId!, locationId!);
  const prepared = prepareShiftq(location, resource, businessDate, data, order.now);
  const outcome = await writeShiftq(deps.store, location, prepared, order, order.now);
  return { outcome, records: prepared.records };
}

async function requireLocation(deps: ProducerDeps, groupId: string, locationId: string) {
  const location = await deps.store.locations.get(groupId, locationId);
  if (!location) throw new ApiError('not_found', `Location ${groupId}/${locationId} does not exist.`);
  return location;
}

export function createHandler(deps: ProducerDeps) {
  return httpShell('producer', deps, { refusalOf: inputRefusal }).handler(async (event, context) => {
    // The IAM principal API Gateway verified; locally, the producer key's name.
    context.caller = event.requestContext.identity?.userArn ?? null;
    const { route, params } = routeOfEvent<ProducerRoute>(event, PRODUCER_ROUTES, resolveProducerPath, NOT_FOUND);
    const operation = route.operation as ProducerOperation;
    context.operation = operation;
    const line = { producer: route.producer, operation };
    try {
      if (!Object.entries(params).every(([name, value]) => DATE_PARAMS.has(name) || isId(value)))
        throw new ApiError('not_found', NOT_FOUND);
      const body = parseJsonBody(event, update, route.maxBodyBytes);
      const now = deps.clock.now();
      const sourceMs = Date.parse(body.sourceTime);
      if (sourceMs > now + MAX_SOURCE_AHEAD_MS)
        throw new AdminInputError(`sourceTime: more than ${MAX_SOURCE_AHEAD_MS / 60_000} minutes ahead of the service's clock`);
      const answer = await OPERATIONS[operation](deps, params, body.data, { sourceMs, sequence: body.sequence, now });
      deps.logger.info(PRODUCER_LINE_MESSAGE, { ...line, outcome: answer.outcome, lagMs: now - sourceMs });
      return jsonResponse(200, { ...answer, sourceTime: new Date(sourceMs).toISOString(), sequence: body.sequence });
    } catch (err) {
      const refusal = err instanceof ApiError ? err : inputRefusal(err);
      if (refusal) deps.logger.info(PRODUCER_LINE_MESSAGE, { ...line, outcome: 'refused', code: refusal.code });
      throw err;
    }
  });
}

/** The Lambda entry (lib/functions.ts). */
export const handler = createHandler(buildDeps<ProducerStore>(new DynamoDBClient({}), PRODUCER_REPOSITORIES));
