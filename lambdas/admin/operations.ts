import { createApp, createdAppDocument, legacyReport, listApps, revokeApp, rotateClientSecret, showApp } from './apps.js';
import {
  addDestination,
  editDestination,
  listDestinations,
  removeDestination,
  rotateSecret,
  sendTest,
  setEnabled,
  showDestination,
} from '#lambdas/webhooks/destination-operations';
import { listAudit } from './audit.js';
import { listLocations, operatorEdit } from './groups.js';
import { putGroup, putLocation } from '#lambdas/producers/venues';
import { reportStopResult } from '#lambdas/producers/matriq';
import { loadVenues } from '#lambdas/producers/loads/venues';
import { loadShiftq, shiftqLoadBody } from '#lambdas/producers/loads/shiftq';
import { loadSports } from '#lambdas/producers/loads/sports';
import { loadMatriq } from '#lambdas/producers/loads/matriq';
import { loadCampaigns } from '#lambdas/producers/loads/campaigns';
import { parseInput } from '#contract/validation';
import { revokeTokenKey } from './token-keys.js';
import { TOKEN_KEY_RETIRE_AFTER_MS } from '#platform/config';
import { deliveryHistory, eventDeliveries, hourlyOutcomes, showDelivery } from '#lambdas/webhooks/delivery-history';
import { listDeadLetters } from '#lambdas/webhooks/dead-letter-operations';
import { listMenus, showMenu } from './menus.js';
import { liftMailSuppression, listMailSuppressions } from './mail-suppressions.js';
import { publishDocument, publishMenu } from '#lambdas/webhooks/publish';
import { redrive, redrivePage, showDeadLetter } from '#lambdas/webhooks/dead-letters';
import type { AdminDeps } from './deps.js';
import { AdminInputError } from '#domain/inputs';
import type { AdminOperation } from '#contract/admin-routes';
import { CLIENT_CREDENTIALS, LEGACY_BEARER } from '#contract/credentials';

/**
 * What an admin operation receives: path parameters, query and the body its route's schema accepted, and the
 * milliseconds the invocation has left (Lambda's context), which bounds work that grows with the data.
 */
type AdminRequest = {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  now: number;
  remainingMs: () => number;
};

/** Each returns the document the admin CLI prints with --json (nothing for 204). */
type AdminOperationFn = (req: AdminRequest, deps: AdminDeps) => Promise<unknown>;

/** The domain functions validate their own input again; the casts only name what they will check. */
type InputOf<F extends (...args: never[]) => unknown, I extends number> = Parameters<F>[I];

export const operations: Record<AdminOperation, AdminOperationFn> = {
  createApp: async ({ body, now }, deps) =>
    createdAppDocument(
      await createApp(deps.store, body as InputOf<typeof createApp, 1>, now, CLIENT_CREDENTIALS, deps.config.stageRateLimit),
    ),
  listApps: ({ query }, deps) => listApps(deps, query),
  showApp: ({ params }, deps) => showApp(deps.store, params.clientId!),
  revokeApp: ({ params, now }, deps) => revokeApp(deps.store, params.clientId!, now),
  rotateClientSecret: ({ params, body, now }, deps) =>
    rotateClientSecret(deps.store, params.clientId!, body as InputOf<typeof rotateClientSecret, 2>, now),
  legacyReport: ({ query }, deps) => legacyReport(deps, query),
  createLegacyApp: async ({ body, now }, deps) =>
    createdAppDocument(await createApp(deps.store, body as InputOf<typeof createApp, 1>, now, LEGACY_BEARER, deps.config.stageRateLimit)),
  listGroups: async (_req, deps) => ({ groups: await deps.store.groups.list() }),
  putGroup: async ({ params, body, now }, deps) =>
    operatorEdit(
      await putGroup(deps.store, { groupId: params.groupId!, ...(body as { name: string }) }, { sourceMs: now, sequence: 0 }, now),
    ),
  listLocations: ({ params }, deps) => listLocations(deps.store, params.groupId!),
  putLocation: async ({ params, body, now }, deps) =>
    operatorEdit(
      await putLocation(
        deps.store,
        { ...(body as Omit<InputOf<typeof putLocation, 1>, 'groupId' | 'id'>), groupId: params.groupId!, id: params.locationId! },
        { sourceMs: now, sequence: 0 },
        now,
      ),
    ),
  // The access-token key's versions as ops see them (never a key): which one signs, which ones still verify the
  // tokens they signed and until when, which were revoked (docs/decisions/credentials.md).
  listTokenKeys: async ({ now }, deps) => ({ versions: await deps.store.tokenKeys.list(now) }),
  // A new version signs from now on; the one it replaces verifies until the tokens it signed have expired.
  rotateTokenKey: async ({ now }, deps) => ({ versions: (await deps.store.tokenKeys.rotate(now, TOKEN_KEY_RETIRE_AFTER_MS))! }),
  revokeTokenKey: ({ params, now }, deps) => revokeTokenKey(deps, params.version!, now),
  addDestination: ({ body }, deps) => addDestination(deps, body as InputOf<typeof addDestination, 1>),
  listDestinations: ({ query }, deps) => listDestinations(deps, query),
  showDestination: ({ params }, deps) => showDestination(deps, params.destinationId!),
  editDestination: ({ params, body }, deps) => editDestination(deps, params.destinationId!, body as InputOf<typeof editDestination, 2>),
  removeDestination: ({ params }, deps) => removeDestination(deps, params.destinationId!),
  rotateSecret: ({ params }, deps) => rotateSecret(deps, params.destinationId!),
  sendTest: ({ params, body }, deps) => sendTest(deps, params.destinationId!, (body as { locationId: string }).locationId),
  disableDestination: ({ params }, deps) => setEnabled(deps, params.destinationId!, false),
  enableDestination: ({ params }, deps) => setEnabled(deps, params.destinationId!, true),
  showMenu: ({ params }, deps) => showMenu(deps, params.groupId!, params.locationId!),
  publishMenu: async ({ params, body }, deps) =>
    publishDocument(await publishMenu(deps, { groupId: params.groupId!, locationId: params.locationId!, menu: body })),
  // An operator's load is the source, observed when it runs (docs/decisions/producers.md): the request's time.
  loadVenues: async ({ body, now }, deps) => ({ groups: await loadVenues(deps.store, body, now) }),
  loadShiftq: async ({ params, body, now }, deps) => {
    const { entries } = parseInput(shiftqLoadBody, body);
    return { loaded: await loadShiftq(deps.store, { groupId: params.groupId!, locationId: params.locationId!, entries }, now) };
  },
  loadSports: ({ body, now }, deps) => loadSports(deps.store, body, now),
  loadMatriq: ({ body, now }, deps) => loadMatriq(deps.store, body, now),
  loadCampaigns: ({ body, now }, deps) => loadCampaigns(deps.store, body, now),
  // The device platform's route's code, the operator's report observed when it runs; never the request's fingerprint.
  reportStopResult: async ({ params, body, now }, deps) => {
    const { status } = body as InputOf<typeof reportStopResult, 1>;
    const { command } = await reportStopResult(deps, { commandId: params.commandId!, status }, { sourceMs: now, sequence: 0 });
    const { requestFingerprint: _fingerprint, ...shown } = command;
    return { command: shown };
  },
  listDeadLetters: ({ query }, deps) => listDeadLetters(deps, query),
  showDeadLetter: ({ params }, deps) => showDeadLetter(deps, params.deliveryId!),
  redriveDeadLetter: ({ params, remainingMs }, deps) => redrive(deps, { deliveryId: params.deliveryId! }, remainingMs),
  redriveAllDeadLetters: ({ body, remainingMs }, deps) => {
    const { deliveryIds, ...page } = body as { deliveryIds?: string[]; cursor?: string; destinationId?: string };
    if (deliveryIds === undefined) return redrivePage(deps, page, remainingMs);
    // A selection is one call of its own: no page to continue, no destination to narrow to.
    if (Object.keys(page).length) throw new AdminInputError('deliveryIds: give a selection alone, without cursor or destinationId');
    return redrive(deps, { deliveryIds }, remainingMs);
  },
  listDeliveries: ({ params, query }, deps) => deliveryHistory(deps, params.destinationId!, query),
  hourlyOutcomes: ({ params }, deps) => hourlyOutcomes(deps, params.destinationId!),
  listEventDeliveries: ({ query }, deps) => eventDeliveries(deps, query as unknown as InputOf<typeof eventDeliveries, 1>),
  showDelivery: ({ params }, deps) => showDelivery(deps, params.deliveryId!),
  listMenus: ({ query }, deps) => listMenus(deps, query as unknown as InputOf<typeof listMenus, 1>),
  listMailSuppressions: ({ query }, deps) => listMailSuppressions(deps, query),
  liftMailSuppression: ({ body }, deps) => liftMailSuppression(deps, body as InputOf<typeof liftMailSuppression, 1>),
  listAudit: ({ query }, deps) => listAudit(deps, query),
};
