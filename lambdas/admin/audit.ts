import type { AuditEntry, AuditPosition } from '#data/audit';
import type { MessagingDeps } from '#platform/deps';
import { adminPage, type PageQuery } from './paging.js';

/** Day partitions one page of the trail reads at most: the whole retention (400 days) in four pages, however quiet. */
const DAYS_PER_PAGE = 100;

/** The ids a change names: its path, what it created, and the destination's application (read before a removal takes it). */
export type AuditTarget = Partial<Pick<AuditEntry, 'clientId' | 'destinationId' | 'deliveryId' | 'groupId' | 'locationId'>>;

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

/** The application a destination change concerns, read before the change (a removal deletes it). */
export async function destinationOwner(deps: MessagingDeps, params: Record<string, string>): Promise<AuditTarget> {
  if (!params.destinationId) return {};
  const destination = await deps.store.destinations.get(params.destinationId);
  return destination ? { clientId: destination.clientId, groupId: destination.groupId } : {};
}

/** Records a change the admin API made. */
export async function recordChange(
  deps: MessagingDeps,
  change: {
    operation: string;
    requestId: string;
    actor: string;
    at: number;
    params: Record<string, string>;
    before: AuditTarget;
    document: unknown;
  },
): Promise<void> {
  const named: AuditTarget = { ...change.before, ...change.params, ...createdIds(change.document) };
  await deps.store.audit.record({
    at: new Date(change.at).toISOString(),
    requestId: change.requestId,
    actor: change.actor,
    operation: change.operation,
    clientId: named.clientId ?? null,
    destinationId: named.destinationId ?? null,
    deliveryId: named.deliveryId ?? null,
    groupId: named.groupId ?? null,
    locationId: named.locationId ?? null,
  });
}

/** A page of the trail, newest first, of one application or destination if asked. */
export async function listAudit(
  deps: MessagingDeps,
  { clientId, destinationId, ...query }: { clientId?: string; destinationId?: string } & PageQuery = {},
) {
  const today = new Date(deps.clock.now()).toISOString().slice(0, 10);
  const filter = { ...(clientId ? { clientId } : {}), ...(destinationId ? { destinationId } : {}) };
  const { items, nextCursor } = await adminPage<AuditEntry, AuditPosition>(
    deps,
    { r: 'audit', c: clientId ?? '', d: destinationId ?? '' },
    query,
    async (limit, start) => {
      const { entries, next } = await deps.store.audit.page({ limit, today, maxDays: DAYS_PER_PAGE, filter, ...(start ? { start } : {}) });
      return { items: entries, ...(next ? { lastKey: next } : {}) };
    },
  );
  return { entries: items, ...(nextCursor ? { nextCursor } : {}) };
}
