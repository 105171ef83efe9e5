import * as v from 'valibot';
import type { AdminOperation } from '#contract/admin-routes';
import { DELIVERY_STATUSES } from '#lambdas/webhooks/delivery-policy';
import { dateTime, id } from '#contract/schemas/common';
import { queryInteger } from '#contract/schemas/requests';
import { groupBody, locationBody } from '#domain/inputs';
import { ADMIN_PAGE_LIMIT } from '#platform/admin-paging';
import { stopResultBody } from '#lambdas/producers/matriq';

/** The admin lists' paging (platform/admin-paging.ts). */
const pageQuery = {
  limit: v.optional(queryInteger(ADMIN_PAGE_LIMIT.min, ADMIN_PAGE_LIMIT.max)),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(2048))),
};

/** A list's search (platform/admin-search.ts): plain text, bounded. */
const search = v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be blank'), v.maxLength(200)));

/** Routes that take no input still refuse a body with stray fields, so a typo never passes silently. */
const noInput = v.strictObject({});

/**
 * A JSON object (parseJsonBody) the operation validates itself, as it does for the admin CLI (the domain's strict
 * schema): checked once, there, and handed on as parsed. Not a loose object: Valibot's drops `__proto__`,
 * `constructor` and `prototype`, which would then reach the strict check already gone and pass unrefused.
 */
const OPERATION_CHECKS = v.unknown();

/**
 * What each admin route accepts: a JSON body (refused with 400 when it does
 * not fit; every route that changes something has one, `{}` when empty) and
 * optional query parameters. A route without a body schema takes no body; a
 * route not listed takes neither.
 */
type AdminInput = { body?: v.GenericSchema; query?: v.ObjectSchema<v.ObjectEntries, undefined> };
export const ADMIN_INPUTS: Partial<Record<AdminOperation, AdminInput>> = {
  createApp: { body: OPERATION_CHECKS },
  listApps: { query: v.object({ groupId: v.optional(id), q: search, ...pageQuery }) },
  revokeApp: { body: noInput },
  // The range is rotateClientSecret's rule, which the CLI shares.
  rotateClientSecret: { body: v.strictObject({ overlapHours: v.optional(v.number()), endOldTokens: v.optional(v.boolean()) }) },
  legacyReport: { query: v.object(pageQuery) },
  createLegacyApp: { body: OPERATION_CHECKS },
  putGroup: { body: groupBody },
  putLocation: { body: locationBody },
  rotateTokenKey: { body: noInput },
  revokeTokenKey: { body: noInput },
  addDestination: { body: OPERATION_CHECKS },
  listDestinations: { query: v.object({ clientId: v.optional(id), q: search, ...pageQuery }) },
  editDestination: { body: OPERATION_CHECKS },
  rotateSecret: { body: noInput },
  // The location id's rule is sendTest's.
  sendTest: { body: v.strictObject({ locationId: v.string() }) },
  disableDestination: { body: noInput },
  enableDestination: { body: noInput },
  publishMenu: { body: OPERATION_CHECKS },
  // A load file's rules are its load's (lambdas/producers/loads/), which checks all of it before writing any.
  loadVenues: { body: OPERATION_CHECKS },
  loadShiftq: { body: OPERATION_CHECKS },
  loadSports: { body: OPERATION_CHECKS },
  loadMatriq: { body: OPERATION_CHECKS },
  loadCampaigns: { body: OPERATION_CHECKS },
  // The command id's rule is recordStopResult's (a clear 400 naming it).
  reportStopResult: { body: stopResultBody },
  listDeadLetters: { query: v.object({ destinationId: v.optional(id), q: search, ...pageQuery }) },
  redriveDeadLetter: { body: noInput },
  // A page of redrive all (of one destination's, with destinationId); `cursor` (the previous page's nextCursor)
  // continues the run. Or a selection: deliveryIds, whose rules are redrive's.
  redriveAllDeadLetters: {
    body: v.strictObject({ cursor: pageQuery.cursor, destinationId: v.optional(id), deliveryIds: v.optional(v.array(v.string())) }),
  },
  listDeliveries: {
    query: v.object({
      status: v.optional(v.picklist(DELIVERY_STATUSES)),
      since: v.optional(dateTime({ utc: true })),
      ...pageQuery,
    }),
  },
  // The id's rule is the operation's (a clear 400 naming it).
  listEventDeliveries: { query: v.object({ eventId: v.pipe(v.string(), v.maxLength(100)), ...pageQuery }) },
  listMenus: { query: v.object({ groupId: id, ...pageQuery }) },
  listMailSuppressions: { query: v.object(pageQuery) },
  // The address's rule is liftMailSuppression's (a clear 400); the bound keeps the body small.
  liftMailSuppression: { body: v.strictObject({ address: v.pipe(v.string(), v.maxLength(320)) }) },
  listAudit: { query: v.object({ clientId: v.optional(id), destinationId: v.optional(id), ...pageQuery }) },
};
