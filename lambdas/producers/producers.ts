import * as v from 'valibot';
import { ApiError } from '#contract/errors';
import { isId } from '#contract/ids';
import { isoTimestamp } from '#contract/schemas/common';
import { AdminInputError } from '#domain/inputs';
import { pathResolver, routeOfEvent } from '#platform/api-handler';
import { buildDeps } from '#platform/deps';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { httpShell, inputRefusal, jsonResponse } from '#platform/http';
import { parseJsonBody } from '#platform/input';
import { sqsClient, sqsWebhookQueue } from '#lambdas/webhooks/messages';
import { CAMPAIGN_OPERATIONS } from './campaigns.js';
import { MENU_OPERATIONS } from './menus.js';
import { MATRIQ_OPERATIONS } from './matriq.js';
import { NOT_FOUND, PRODUCER_REPOSITORIES, type Operation, type ProducerDeps, type ProducerStore } from './operation.js';
import { REVIEW_OPERATIONS } from './reviews.js';
import { PRODUCER_ROUTES, type ProducerOperation, type ProducerRoute } from './routes.js';
import { PRODUCER_LINE_MESSAGE, type ProducerOutcome } from './update-line.js';
import { SHIFTQ_OPERATIONS } from './shiftq.js';
import { SPORTS_OPERATIONS } from './sports.js';
import { VENUE_OPERATIONS } from './venues.js';

/**
 * The producer HTTP API (docs/decisions/producers.md): the platform's systems write venue data, one whole update a
 * request, each in its source's order. Who may call which route is decided before this runs (each producer's IAM
 * policy in AWS, its key locally), so it only routes, validates and writes.
 */

const resolveProducerPath = pathResolver<ProducerRoute>(PRODUCER_ROUTES);
/** Every other path parameter is an id, which names nothing when it breaks the id rule; a date is its record's to check (400). */
const DATE_PARAMS = new Set(['businessDate', 'date']);

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

/** Each route's implementation, by operation: every module of this room brings its own. */
const OPERATIONS: Record<ProducerOperation, Operation> = {
  ...VENUE_OPERATIONS,
  ...SPORTS_OPERATIONS,
  ...SHIFTQ_OPERATIONS,
  ...MATRIQ_OPERATIONS,
  ...MENU_OPERATIONS,
  ...REVIEW_OPERATIONS,
  ...CAMPAIGN_OPERATIONS,
};

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
      if (refusal) deps.logger.info(PRODUCER_LINE_MESSAGE, { ...line, outcome: 'refused' satisfies ProducerOutcome, code: refusal.code });
      throw err;
    }
  });
}

/** The Lambda entry (lib/functions.ts). */
const deps = buildDeps<ProducerStore>(new DynamoDBClient({}), PRODUCER_REPOSITORIES);
export const handler = createHandler({ ...deps, queue: { fanOut: sqsWebhookQueue(sqsClient(), deps.config).fanOut } });
