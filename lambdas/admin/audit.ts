import type { AuditDetails, AuditEntry, AuditPosition } from './audit-records.js';
import type { App } from '#data/apps';
import type { Location } from '#data/locations';
import type { KeyVersionState } from '#data/token-keys';
import type { AdminOperation } from '#contract/admin-routes';
import type { AdminDeps } from './deps.js';
import { SECRET_OVERLAP_HOURS } from './apps.js';
import type { PublicDestination } from '#lambdas/webhooks/destination-operations';
import { adminPage, type PageQuery } from '#platform/admin-paging';
import type { ShiftqLoaded } from '#lambdas/producers/loads/shiftq';

/** The ids an entry records, null where the change names none. */
const TARGET_IDS = ['clientId', 'destinationId', 'deliveryId', 'groupId', 'locationId'] as const;
type TargetId = (typeof TARGET_IDS)[number];

/** The ids a change names: its path, what it created, and the destination's application (read before a removal takes it). */
export type AuditTarget = Partial<Pick<AuditEntry, TargetId>>;

/** What the change's response adds to its path: the ids it created (never a secret: only ids are picked). */
function createdIds(document: unknown): AuditTarget {
  const doc = (document ?? {}) as {
    app?: { clientId?: string };
    destination?: { destinationId?: string; clientId?: string };
    deliveryId?: string;
  };
  return {
    ...(doc.app?.clientId ? { clientId: doc.app.clientId } : {}),
    ...(doc.destination?.destinationId ? { destinationId: doc.destination.destinationId, clientId: doc.destination.clientId ?? null } : {}),
    ...(typeof doc.deliveryId === 'string' ? { deliveryId: doc.deliveryId } : {}),
  };
}

/** The ids a change's body names (an application's group, a test's location, a redrive's destination): strings only. */
function bodyIds(body: unknown): AuditTarget {
  const named = (body ?? {}) as Record<string, unknown>;
  return Object.fromEntries(
    (['clientId', 'destinationId', 'groupId', 'locationId'] as const).filter((k) => typeof named[k] === 'string').map((k) => [k, named[k]]),
  );
}

type Change = { params: Record<string, string>; body: unknown; document: unknown };

const appDetails = ({ document }: Change): AuditDetails => {
  const { name, credentialType, scopes, allowedLocationIds, rateLimitPerMinute, expiresAt } = (document as { app: App }).app;
  return {
    name,
    credentialType,
    scopes: [...scopes],
    locations: allowedLocationIds ?? 'all',
    rateLimitPerMinute,
    expiresAt: expiresAt ?? null,
  };
};

const destinationDetails = ({ document }: Change): AuditDetails => {
  const { destination } = document as { destination: PublicDestination };
  return { name: destination.name, urlHost: destination.hostname, locations: destination.locationIds ?? 'all' };
};

/** A load's counts, as its answer gives them (each a number). */
const loadCounts =
  <K extends string>(...names: K[]) =>
  ({ document }: Change): AuditDetails =>
    Object.fromEntries(names.map((name) => [name, (document as Record<K, number>)[name]]));

const redriveDetails = ({ document }: Change): AuditDetails => {
  const { redriven, removedMessages } = document as { redriven: string[]; removedMessages: number };
  return { redriven: redriven.length, removedMessages };
};

/**
 * What each kind of change records of its parameters, from its request and its answer: named fields only, so a
 * secret the answer carries (a client secret, a signing secret) never reaches the trail. An operation not listed
 * records its ids alone.
 */
const DETAILS: Partial<Record<AdminOperation, (change: Change) => AuditDetails>> = {
  createApp: appDetails,
  createLegacyApp: appDetails,
  rotateClientSecret: ({ body, document }) => ({
    overlapHours: (body as { overlapHours?: number }).overlapHours ?? SECRET_OVERLAP_HOURS.default,
    oldTokensEndAt: (document as { oldTokensEndAt: string | null }).oldTokensEndAt,
  }),
  rotateTokenKey: ({ document }) => ({
    signingVersion: (document as { versions: KeyVersionState[] }).versions.find((v) => v.state === 'signing')?.version ?? null,
  }),
  revokeTokenKey: ({ params }) => ({ version: params.version ?? null }),
  addDestination: destinationDetails,
  editDestination: destinationDetails,
  publishMenu: ({ document }) => {
    const { revision, newRevision, deliveries } = document as { revision: string; newRevision: boolean; deliveries: number };
    return { revision, newRevision, deliveries };
  },
  redriveDeadLetter: redriveDetails,
  redriveAllDeadLetters: redriveDetails,
  putGroup: ({ document }) => ({ name: (document as { group: { name: string } }).group.name }),
  putLocation: ({ document }) => {
    const { name, status, timezone, slug, modulesEnabled } = (document as { location: Location }).location;
    const modules = Object.entries(modulesEnabled).flatMap(([m, on]) => (on ? [m] : []));
    return { name, status, timezone, slug, modules };
  },
  liftMailSuppression: ({ body }) => ({ address: (body as { address: string }).address }),
  // A load records what it wrote, counted: the file itself is the operator's.
  loadVenues: ({ document }) => {
    const { groups } = document as { groups: { locations: unknown[] }[] };
    return { groups: groups.length, locations: groups.reduce((n, g) => n + g.locations.length, 0) };
  },
  loadShiftq: ({ document }) => {
    const { loaded } = document as { loaded: ShiftqLoaded[] };
    return {
      entries: loaded.length,
      records: loaded.reduce((n, l) => n + l.records, 0),
      kinds: [...new Set(loaded.map((l) => l.kind))],
      businessDates: [...new Set(loaded.flatMap((l) => (l.businessDate ? [l.businessDate] : [])))].sort(),
    };
  },
  loadSports: loadCounts('schedules', 'environments', 'viewing'),
  loadMatriq: loadCounts('locations'),
  loadCampaigns: loadCounts('campaigns'),
  reportStopResult: ({ params, body }) => ({ commandId: params.commandId ?? null, status: (body as { status: string }).status }),
};

/** The application a destination change concerns, read before the change (a removal deletes it). */
export async function destinationOwner(deps: AdminDeps, params: Record<string, string>): Promise<AuditTarget> {
  if (!params.destinationId) return {};
  const destination = await deps.store.destinations.get(params.destinationId);
  return destination ? { clientId: destination.clientId, groupId: destination.groupId } : {};
}

/** A change the admin API made, who made it and when, and the ids named before it was made. */
type Made = Change & { operation: AdminOperation; requestId: string; actor: string; at: number; before: AuditTarget };

/** Records a change the admin API made. */
export async function recordChange(deps: AdminDeps, change: Made): Promise<void> {
  const named: AuditTarget = { ...change.before, ...bodyIds(change.body), ...change.params, ...createdIds(change.document) };
  await deps.store.audit.record({
    at: new Date(change.at).toISOString(),
    requestId: change.requestId,
    actor: change.actor,
    operation: change.operation,
    ...(Object.fromEntries(TARGET_IDS.map((id) => [id, named[id] ?? null])) as Pick<AuditEntry, TargetId>),
    details: DETAILS[change.operation]?.(change) ?? {},
  });
}

/** A page of the trail, newest first, of one application or destination if asked. */
export async function listAudit(
  deps: AdminDeps,
  { clientId, destinationId, ...query }: { clientId?: string; destinationId?: string } & PageQuery = {},
) {
  const today = new Date(deps.clock.now()).toISOString().slice(0, 10);
  const filter = { ...(clientId ? { clientId } : {}), ...(destinationId ? { destinationId } : {}) };
  const { items, nextCursor } = await adminPage<AuditEntry, AuditPosition>(
    deps,
    { r: 'audit', c: clientId ?? '', d: destinationId ?? '' },
    query,
    async (limit, start) => {
      const { entries, next } = await deps.store.audit.page({ limit, today, filter, ...(start ? { start } : {}) });
      return { items: entries, ...(next ? { lastKey: next } : {}) };
    },
  );
  return { entries: items, ...(nextCursor ? { nextCursor } : {}) };
}
