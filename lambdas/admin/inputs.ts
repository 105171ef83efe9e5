import * as z from 'zod';
import type { AdminOperation } from '#contract/admin-routes';
import { DELIVERY_STATUSES } from '#contract/delivery-policy';
import { id } from '#contract/schemas/common';
import { ADMIN_PAGE_LIMIT } from './paging.js';
import { addDestinationInput as addInput, appInput, editDestinationInput as editInput } from '#domain/inputs';

/** The admin lists' paging (admin/paging.ts). */
const pageQuery = {
  limit: z.coerce.number().int().min(ADMIN_PAGE_LIMIT.min).max(ADMIN_PAGE_LIMIT.max).optional(),
  cursor: z.string().max(2048).optional(),
};

/** Routes that take no input still refuse a body with stray fields, so a typo never passes silently. */
const noInput = z.object({}).strict();

/**
 * What each admin route accepts: a JSON body (refused with 400 when it does
 * not fit; every route that changes something has one, `{}` when empty) and
 * optional query parameters. A route without a body schema takes no body.
 */
export const ADMIN_INPUTS: Record<AdminOperation, { body?: z.ZodType; query?: z.ZodObject }> = {
  createApp: { body: appInput.strict() },
  listApps: { query: z.object({ groupId: id.optional(), ...pageQuery }) },
  showApp: {},
  revokeApp: { body: noInput },
  // The range is rotateClientSecret's rule, which the CLI shares.
  rotateClientSecret: { body: z.object({ overlapHours: z.number().optional() }).strict() },
  legacyReport: { query: z.object(pageQuery) },
  listTokenKeys: {},
  rotateTokenKey: { body: noInput },
  revokeTokenKey: { body: noInput },
  addDestination: { body: addInput.strict() },
  listDestinations: { query: z.object({ clientId: id.optional(), ...pageQuery }) },
  showDestination: {},
  editDestination: { body: editInput.strict() },
  removeDestination: {},
  rotateSecret: { body: noInput },
  sendTest: { body: z.object({ locationId: id }).strict() },
  disableDestination: { body: noInput },
  enableDestination: { body: noInput },
  publishMenu: { body: z.looseObject({}) },
  listDeadLetters: { query: z.object(pageQuery) },
  showDeadLetter: {},
  redriveDeadLetter: { body: noInput },
  // A page of redrive all; `cursor` (from the previous page's nextCursor) continues the run.
  redriveAllDeadLetters: { body: z.object({ cursor: pageQuery.cursor }).strict() },
  listDeliveries: {
    query: z.object({
      status: z.enum(DELIVERY_STATUSES).optional(),
      since: z.string().datetime({ offset: false }).optional(),
      ...pageQuery,
    }),
  },
  hourlyOutcomes: {},
  listMenus: { query: z.object({ groupId: id, ...pageQuery }) },
  listMailSuppressions: { query: z.object(pageQuery) },
  // The address's rule is liftMailSuppression's (a clear 400); the bound keeps the body small.
  liftMailSuppression: { body: z.object({ address: z.string().max(320) }).strict() },
  listAudit: { query: z.object({ clientId: id.optional(), destinationId: id.optional(), ...pageQuery }) },
};
