import { randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { randomSecret } from '#domain/crypto';
import type { App } from '#data/apps';
import { lastOutcome, newDelivery, type Delivery } from './deliveries.js';
import { aboutDestination, isPaused, UNTESTED, urlSafetyOf, type Destination } from './destinations.js';
import type { WalkKey } from '#data/group-index';
import type { MessagingDeps } from './deps.js';
import { sendMail } from '#platform/mailer';

import { resolveDestination } from '#domain/url-safety';
import { appIneligibility, covers, queueDeliveries } from './fan-out.js';

import { newEvent } from './messages.js';
import { adminPage, type PageQuery } from '#platform/admin-paging';
import { matches, searchPage } from '#platform/admin-search';
import {
  addDestinationInput as addInput,
  AdminConflictError,
  AdminInputError,
  AdminNotFoundError,
  editDestinationInput as editInput,
} from '#domain/inputs';
import { parseInput } from '#contract/validation';
import { id } from '#contract/schemas/common';
import { WEBHOOK_TEST } from './events.js';
import { DESTINATIONS_PER_APPLICATION } from './destination-limit.js';

/**
 * Webhook destinations (contract 6.5), as the admin CLI and console manage
 * them. Every function validates all input before writing anything.
 */

/** Recent deliveries shown per destination (contract 8). */
const RECENT_DELIVERIES = 3;

const INELIGIBLE: Record<string, string> = {
  application_removed: 'does not exist',
  legacy_credential: 'uses a legacy bearer credential, which cannot own webhook destinations',
  application_revoked: 'is revoked',
  application_inactive: 'has expired',
  application_without_bevq: 'does not hold bevq:read',
};

const DESTINATION_ID = /^dst_[0-9a-f]{20}$/;
const destinationId = v.object({ destinationId: v.pipe(v.string(), v.regex(DESTINATION_ID, 'must be dst_ followed by 20 hex digits')) });

/** A destination as ops and owners see it: never the signing secret. */
/** `paused`: its new deliveries are held until it answers again (docs/decisions/webhooks.md). */
export type PublicDestination = ReturnType<typeof publicDestination>;

function publicDestination(d: Destination) {
  const { signingSecret: _secret, health, ...rest } = d;
  return { ...rest, health: d.enabled ? health : ('DISABLED' as const), paused: d.enabled && isPaused(d) };
}

/** A destination as shown after a change: with the health its attempts recorded. */
async function shown(deps: MessagingDeps, d: Destination): Promise<PublicDestination> {
  const [withHealth] = await deps.store.destinations.withHealth([d]);
  return publicDestination(withHealth!);
}

/** What `destinations show` lists per delivery: status, safe error code, times; never a body. */
export function deliverySummary(d: Delivery) {
  return {
    deliveryId: d.deliveryId,
    eventId: d.eventId,
    eventType: d.eventType,
    locationId: d.locationId,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: d.nextAttemptAt,
    errorCode: lastOutcome(d).lastErrorCode,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

async function eligibleApp(deps: MessagingDeps, clientId: string): Promise<App> {
  const app = await deps.store.apps.get(clientId);
  const problem = appIneligibility(app, deps.clock.now());
  if (problem) throw new AdminInputError(`application ${clientId} ${INELIGIBLE[problem] ?? problem}`);
  return app!;
}

async function checkLocations(deps: MessagingDeps, app: App, ids: string[] | null): Promise<void> {
  if (!ids) return;
  const known = new Set((await deps.store.locations.list(app.groupId)).map((l) => l.id));
  const unknown = ids.filter((l) => !known.has(l));
  if (unknown.length) throw new AdminInputError(`unknown locations in ${app.groupId}: ${unknown.join(', ')}`);
  // A subscription never reaches beyond what the application may read.
  const outside = app.allowedLocationIds ? ids.filter((l) => !app.allowedLocationIds!.includes(l)) : [];
  if (outside.length) throw new AdminInputError(`application ${app.clientId} does not cover: ${outside.join(', ')}`);
}

/**
 * The URL rules on save: static checks and DNS, every address public. Returns the URL in the canonical form that
 * is stored (docs/decisions/destination-urls.md) and its host.
 */
async function checkUrl(deps: MessagingDeps, url: string): Promise<{ url: string; hostname: string }> {
  const target = await resolveDestination(url, deps.resolver, urlSafetyOf(deps.config));
  if (!target.ok) throw new AdminInputError(`url refused: ${target.reason}`);
  return { url: target.url.href, hostname: target.hostname };
}

export async function requireDestination(deps: MessagingDeps, destId: string): Promise<Destination> {
  parseInput(destinationId, { destinationId: destId });
  const destination = await deps.store.destinations.get(destId);
  if (!destination) throw new AdminNotFoundError(`destination ${destId} does not exist`);
  return destination;
}

/** Configuration e-mail to the application owner (create, update, remove only); never a secret, never the full URL. */
async function notifyOwner(deps: MessagingDeps, d: Destination, change: 'created' | 'updated' | 'removed'): Promise<void> {
  const app = await deps.store.apps.get(d.clientId);
  if (!app?.ownerEmail) return;
  const text = (named: string) =>
    `${named} was ${change}.\n` +
    (change === 'removed'
      ? 'It receives no further events.\n'
      : `Locations: ${d.locationIds?.join(', ') ?? 'all the application covers'}.\n`) +
    'If you did not expect this change, contact your administrator.\n';
  const mail = { to: app.ownerEmail, ...aboutDestination(app, d, change, text) };
  // A failed send is counted and logged (never the address); the change itself stands.
  await sendMail(deps, mail, `destination-${change}`);
}

export async function addDestination(deps: MessagingDeps, input: v.InferInput<typeof addInput>) {
  const fields = parseInput(addInput, input);
  const app = await eligibleApp(deps, fields.clientId);
  await checkLocations(deps, app, fields.locationIds);
  const { url, hostname } = await checkUrl(deps, fields.url);
  const at = new Date(deps.clock.now()).toISOString();
  const signingSecret = randomSecret(32);
  const destination: Destination = {
    destinationId: `dst_${randomBytes(10).toString('hex')}`,
    clientId: app.clientId,
    groupId: app.groupId,
    name: fields.name,
    url,
    hostname,
    locationIds: fields.locationIds,
    enabled: true,
    signingSecret,
    ...UNTESTED,
    createdAt: at,
    updatedAt: at,
  };
  if (!(await deps.store.destinations.create(destination, DESTINATIONS_PER_APPLICATION))) {
    throw new AdminConflictError(
      `application ${app.clientId} has ${DESTINATIONS_PER_APPLICATION} destinations, the limit per application: remove one before adding another`,
    );
  }
  await notifyOwner(deps, destination, 'created');
  return { destination: publicDestination(destination), signingSecret };
}

export async function editDestination(deps: MessagingDeps, destId: string, input: v.InferInput<typeof editInput>) {
  const fields = parseInput(editInput, input);
  const current = await requireDestination(deps, destId);
  const changes: Partial<Destination> = {};
  if (fields.name !== undefined) changes.name = fields.name;
  if (fields.url !== undefined && fields.url.trim() !== '') {
    const { url, hostname } = await checkUrl(deps, fields.url);
    changes.url = url;
    changes.hostname = hostname;
  }
  if (fields.locationIds !== undefined) {
    const app = await deps.store.apps.get(current.clientId);
    if (!app) throw new AdminInputError(`application ${current.clientId} does not exist`);
    await checkLocations(deps, app, fields.locationIds);
    changes.locationIds = fields.locationIds;
  }
  if (Object.keys(changes).length === 0) throw new AdminInputError('nothing to change: give a name, url or locations');
  const updated = await change(deps, destId, changes);
  await notifyOwner(deps, updated, 'updated');
  return { destination: await shown(deps, updated) };
}

/** Writes configuration fields of a destination; 404 when there is none (or it was removed meanwhile). */
async function change(deps: MessagingDeps, destId: string, fields: Partial<Destination>): Promise<Destination> {
  parseInput(destinationId, { destinationId: destId });
  const updated = await deps.store.destinations.update(destId, { ...fields, updatedAt: new Date(deps.clock.now()).toISOString() });
  if (!updated) throw new AdminNotFoundError(`destination ${destId} does not exist`);
  return updated;
}

/** A new secret at once; the previous one stops working immediately (no overlap). */
export async function rotateSecret(deps: MessagingDeps, destId: string) {
  const signingSecret = randomSecret(32);
  return { destination: await shown(deps, await change(deps, destId, { signingSecret })), signingSecret };
}

export async function setEnabled(deps: MessagingDeps, destId: string, enabled: boolean) {
  return { destination: await shown(deps, await change(deps, destId, { enabled })) };
}

/** Deletes the destination, its subscription and its secret; queued attempts then fail without a request. */
export async function removeDestination(deps: MessagingDeps, destId: string) {
  const current = await requireDestination(deps, destId);
  if (!(await deps.store.destinations.remove(destId))) throw new AdminNotFoundError(`destination ${destId} does not exist`);
  await notifyOwner(deps, current, 'removed');
  return { removed: destId };
}

/** A page of destinations, or of one application's (read from its group's partition), or those matching `q` (search.ts); never a secret. */
export async function listDestinations(deps: MessagingDeps, { clientId, q, ...query }: { clientId?: string; q?: string } & PageQuery = {}) {
  const app = clientId ? await deps.store.apps.get(clientId) : null;
  const { items, nextCursor } = await adminPage<Destination, WalkKey>(
    deps,
    { r: 'destinations', c: clientId ?? '', q: q ?? '' },
    query,
    async (limit, startKey) => {
      // An application that does not exist owns nothing.
      if (clientId && !app) return { items: [] };
      if (q && DESTINATION_ID.test(q.trim())) {
        const one = await deps.store.destinations.get(q.trim());
        return { items: one && (!clientId || one.clientId === clientId) ? await deps.store.destinations.withHealth([one]) : [] };
      }
      const scope = app ? { groupId: app.groupId, clientId: app.clientId } : undefined;
      const read = async (n: number, key?: WalkKey) => {
        const { destinations: items, lastKey } = await deps.store.destinations.page({ limit: n, scope, startKey: key });
        return { items, lastKey };
      };
      const page = q
        ? await searchPage(read, (ds) => ds.filter((d) => matches(q, [d.destinationId, d.name, d.hostname, d.clientId])), limit, startKey)
        : await read(limit, startKey);
      return { items: await deps.store.destinations.withHealth(page.items), lastKey: page.lastKey };
    },
  );
  return { destinations: items.map(publicDestination), ...(nextCursor ? { nextCursor } : {}) };
}

export async function showDestination(deps: MessagingDeps, destId: string) {
  const destination = await requireDestination(deps, destId);
  const [shownDestination, recent] = await Promise.all([
    shown(deps, destination),
    deps.store.deliveries.history(destId, { limit: RECENT_DELIVERIES }),
  ]);
  return { destination: shownDestination, recentDeliveries: recent.items.map(deliverySummary) };
}

/** Send test (6.5 rule 7): a signed synthetic event through the same queue, worker and retry policy. */
export async function sendTest(deps: MessagingDeps, destId: string, locationId: string) {
  parseInput(v.object({ locationId: id }), { locationId });
  const destination = await requireDestination(deps, destId);
  if (!destination.enabled) throw new AdminConflictError(`destination ${destId} is disabled`);
  const app = await eligibleApp(deps, destination.clientId);
  if (!(await deps.store.locations.get(destination.groupId, locationId))) {
    throw new AdminInputError(`location ${destination.groupId}/${locationId} does not exist`);
  }
  if (!covers(destination, app, destination.groupId, locationId)) {
    throw new AdminInputError(`destination ${destId} does not cover location ${locationId}`);
  }
  const now = deps.clock.now();
  const event = newEvent(WEBHOOK_TEST, { groupId: destination.groupId, locationId, revision: '' }, now);
  const delivery = newDelivery(event, destination, now);
  await queueDeliveries(deps, [delivery]);
  return { eventId: event.eventId, deliveryId: delivery.deliveryId };
}
