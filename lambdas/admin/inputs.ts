import { z } from 'zod';
import type { AdminOperation } from '#contract/admin-routes';
import { id } from '#contract/schemas/common';
import { addDestinationInput as addInput, appInput, editDestinationInput as editInput } from '#domain/inputs';

/** Routes that take no input still refuse a body with stray fields, so a typo never passes silently. */
const noInput = z.object({}).strict();

/**
 * What each admin route accepts: a JSON body (refused with 400 when it does
 * not fit; every route that changes something has one, `{}` when empty) and
 * optional query parameters. A route without a body schema takes no body.
 */
export const ADMIN_INPUTS: Record<AdminOperation, { body?: z.ZodType; query?: z.ZodObject }> = {
  createApp: { body: appInput.strict() },
  listApps: { query: z.object({ groupId: id.optional() }) },
  showApp: {},
  revokeApp: { body: noInput },
  addDestination: { body: addInput.strict() },
  listDestinations: { query: z.object({ clientId: id.optional() }) },
  showDestination: {},
  editDestination: { body: editInput.strict() },
  removeDestination: {},
  rotateSecret: { body: noInput },
  sendTest: { body: z.object({ locationId: id }).strict() },
  disableDestination: { body: noInput },
  enableDestination: { body: noInput },
  publishMenu: { body: z.looseObject({}) },
  listDeadLetters: {},
  showDeadLetter: {},
  redriveDeadLetter: { body: noInput },
  redriveAllDeadLetters: { body: noInput },
};
