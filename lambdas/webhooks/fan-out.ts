import type { SQSRecord } from 'aws-lambda';
import type { App } from '#data/apps';
import { STATUS } from './delivery-policy.js';
import { isPaused, type Destination } from './destinations.js';
import type { WalkKey } from '#data/group-index';
import { headOf } from '#data/menus';
import { newDelivery, type Delivery } from './deliveries.js';
import { outboxKeys, type MenuEvent, type OutboxEntry } from './outbox.js';
import { PARTITION_WRITES_PER_SECOND, TABLE_KEYS } from '#data/table';
import type { MessagingDeps } from './deps.js';
import { enqueueDeliveries, enqueueDispatch, parseFanOutMessage, refuseRecord, sqsConsumer } from './messages.js';
import { releaseIfResumed } from './pause.js';
import { CLIENT_CREDENTIALS } from '#contract/credentials';
import { BEVQ_SCOPE } from '#contract/scopes';

/**
 * Who receives a menu event, and how: the destinations whose application may own them and that cover the
 * location, each a delivery record queued (or held while its destination is paused), a page at a time.
 */

/**
 * Who may own a destination and which locations it covers (contract 6.5
 * rules 1 and 3). Checked when saving and again before every attempt.
 */

/** Why an application cannot own (or keep receiving on) a destination, or null when it can. */
export function appIneligibility(app: App | null, now: number): string | null {
  if (!app) return 'application_removed';
  if (app.credentialType !== CLIENT_CREDENTIALS) return 'legacy_credential';
  if (app.status !== 'active') return 'application_revoked';
  if (app.expiresAt && Date.parse(app.expiresAt) <= now) return 'application_inactive';
  if (!app.scopes.includes(BEVQ_SCOPE)) return 'application_without_bevq';
  return null;
}

/**
 * The locations a destination receives events for: its own list when it has
 * one (never widened), else the application's allowlist, else null meaning
 * every location of the group, including future ones.
 */
export function coveredLocationIds(destination: Pick<Destination, 'locationIds'>, app: App): string[] | null {
  const own = destination.locationIds;
  if (own && app.allowedLocationIds) return own.filter((l) => app.allowedLocationIds!.includes(l));
  return own ?? app.allowedLocationIds;
}

export function covers(destination: Pick<Destination, 'locationIds' | 'groupId'>, app: App, groupId: string, locationId: string): boolean {
  if (destination.groupId !== groupId || app.groupId !== groupId) return false;
  const covered = coveredLocationIds(destination, app);
  return covered === null || covered.includes(locationId);
}

/**
 * The fan-out's write budget, declared once (docs/decisions/due-deliveries.md): the write units a second one
 * invocation spends at most on a page's records and held items, so none bursts past it however many receivers a
 * group has; a page is at most DISPATCH_PAGE destinations, and the next page is the next invocation's.
 *
 * A record writes the item and an entry in each GSI, each under 1 KB: one unit each. Three quarters of what one
 * partition takes: were every record of a second to land on one partition (they spread: their ids are hashes),
 * it would still hold, and each of the due index's 16 partitions takes a sixteenth of it. The table's on-demand
 * quota (40,000 units a second by default) holds some fifty invocations at full pace.
 */
export const FAN_OUT_WRITES = {
  unitsPerSecond: (PARTITION_WRITES_PER_SECOND * 3) / 4,
  unitsPerRecord: 1 + TABLE_KEYS.globalIndexes.length,
  /** Conditional creates sent together, and paced as one: enough to overlap round trips. */
  wave: 25,
} as const;

/** Time as the pace keeps it: real by default (the rate is the table's, not the business clock's); tests pass their own. */
const realTime = { now: () => performance.now(), sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)) };

/** One invocation's share of FAN_OUT_WRITES: `take` waits until `units` more fit; `seconds` is the budget's time taken so far. */
export type Pace = { take(units: number): Promise<void>; seconds(): number };

/**
 * Each take starts where the one before it ends on the budget's schedule (its units at unitsPerSecond), never
 * sooner: takes made together are given consecutive slots, so an invocation's parallel pages share one budget.
 */
export function writePace(ticker = realTime): Pace {
  let free = -Infinity;
  let taken = 0;
  return {
    async take(units) {
      const now = ticker.now();
      const at = Math.max(now, free);
      free = at + (units * 1000) / FAN_OUT_WRITES.unitsPerSecond;
      taken += units;
      if (at > now) await ticker.sleep(at - now);
    },
    seconds: () => taken / FAN_OUT_WRITES.unitsPerSecond,
  };
}

/**
 * Creates each delivery record if missing, a paced wave of conditional puts at a time (a BatchWriteItem could
 * overwrite a record a concurrent run of the same page created and an attempt has since moved on); returns the
 * records to send. A record found still PENDING may never have been sent (a crash between the two), so it is
 * sent again: a duplicate message is harmless (the first to start an attempt becomes the carrier; the others
 * are dropped), a lost one is not. A record never overwrites one that exists.
 */
async function recordDeliveries(deps: MessagingDeps, deliveries: readonly Delivery[], pace: Pace): Promise<Delivery[]> {
  const toSend: Delivery[] = [];
  for (let i = 0; i < deliveries.length; i += FAN_OUT_WRITES.wave) {
    const wave = deliveries.slice(i, i + FAN_OUT_WRITES.wave);
    await pace.take(wave.length * FAN_OUT_WRITES.unitsPerRecord);
    await Promise.all(
      wave.map(async (delivery) => {
        if (await deps.store.deliveries.create(delivery)) return void toSend.push(delivery);
        const existing = await deps.store.deliveries.get(delivery.deliveryId);
        if (existing?.status === STATUS.PENDING) toSend.push(existing);
      }),
    );
  }
  return toSend;
}

/** Records the deliveries, then queues their messages in batches (each for the record's counts as they stand). */
export async function queueDeliveries(deps: MessagingDeps, deliveries: readonly Delivery[], pace = writePace()): Promise<void> {
  await enqueueDeliveries(deps, await recordDeliveries(deps, deliveries, pace));
}

/**
 * Records the deliveries of paused destinations and holds them instead of
 * queueing: each gets a held item, and each destination its paused marker
 * (after the held items, so the sweeper that finds a marker gone can look
 * for late ones: see pause.ts).
 */
async function holdDeliveries(deps: MessagingDeps, deliveries: readonly Delivery[], pace: Pace): Promise<void> {
  const toHold = await recordDeliveries(deps, deliveries, pace);
  if (toHold.length === 0) return;
  // Keyed by the record's own creation, so holding a record again (a re-dispatch) rewrites the same item.
  await pace.take(toHold.length);
  await deps.store.holds.hold(
    toHold.map((d) => ({
      destinationId: d.destinationId,
      deliveryId: d.deliveryId,
      clientId: d.clientId,
      createdAt: d.createdAt,
      redrive: d.redrives,
    })),
  );
  const at = new Date(deps.clock.now()).toISOString();
  await Promise.all([...new Set(toHold.map((d) => d.destinationId))].map((id) => deps.store.holds.markPaused(id, at)));
}

/** Destinations one fan-out page takes: one invocation's work stays the same however many a group has. */
export const DISPATCH_PAGE = 100;

/** The eligible, enabled destinations among one page of the group's, covering the location. */
async function eligibleAmong(deps: MessagingDeps, destinations: readonly Destination[], { groupId, locationId }: MenuEvent) {
  const enabled = destinations.filter((d) => d.enabled);
  const apps = new Map(
    await Promise.all([...new Set(enabled.map((d) => d.clientId))].map(async (id) => [id, await deps.store.apps.get(id)] as const)),
  );
  const now = deps.clock.now();
  return enabled.filter((d) => {
    const app = apps.get(d.clientId) ?? null;
    return app !== null && appIneligibility(app, now) === null && covers(d, app, groupId, locationId);
  });
}

/**
 * Fans one page of a menu event out, from the entry's `cursor` (null: the
 * first page), its writes within the invocation's `pace`. After the last page
 * the event leaves the outbox; otherwise the entry records the next cursor and
 * a message on the fan-out queue wakes the dispatcher for that page, so no
 * invocation's work grows with the number of receivers. Safe to repeat: ids
 * are deterministic and records are created with a condition; of two runs on
 * the same page only the one that moves the cursor goes on. Throws when
 * queueing fails, leaving the entry (and its cursor) for the sweeper. Returns
 * the deliveries this page queued.
 */
export async function dispatchMenuEvent(deps: MessagingDeps, event: MenuEvent, cursor: string | null = null, pace = writePace()) {
  const location = await deps.store.locations.get(event.groupId, event.locationId);
  if (!location?.modulesEnabled.bevq) {
    await deps.store.outbox.remove(event.eventId);
    return 0;
  }
  const startKey = cursor === null ? undefined : (JSON.parse(cursor) as WalkKey);
  const page = await deps.store.destinations.page({ scope: { groupId: event.groupId }, limit: DISPATCH_PAGE, startKey });
  const targets = await deps.store.destinations.withHealth(await eligibleAmong(deps, page.destinations, event));
  const now = deps.clock.now();
  const deliveryOf = (destination: Destination) => newDelivery(event, destination, now);
  await Promise.all([
    queueDeliveries(deps, targets.filter((d) => !isPaused(d)).map(deliveryOf), pace),
    holdDeliveries(deps, targets.filter(isPaused).map(deliveryOf), pace),
  ]);
  deps.logger.info('menu event dispatched', { eventId: event.eventId, deliveries: targets.length, more: page.lastKey !== undefined });
  if (!page.lastKey) await deps.store.outbox.remove(event.eventId);
  else {
    const next = JSON.stringify(page.lastKey);
    if (await deps.store.outbox.advance(event.eventId, cursor, next, new Date(now).toISOString()))
      await enqueueDispatch(deps, event.eventId, next);
  }
  return targets.length;
}

/**
 * The fan-out queue's consumer, the dispatcher's other entry (SQS event source, reportBatchItemFailures): the
 * pages after a publish's first, and resumed destinations' releases; never a delivery.
 */
export function createFanOutConsumer(deps: MessagingDeps) {
  return sqsConsumer(deps, () => {
    // One write budget per invocation: the pages of a batch share it.
    const pace = writePace();
    return (record) => wakeUp(deps, record, pace);
  });
}

/**
 * A fan-out page or a release; anything else (a delivery sent to the wrong queue) is refused, never run. Done
 * either way: should it fail, its outbox entry (and cursor) or paused marker stays, and the sweeper goes on from there.
 */
async function wakeUp(deps: MessagingDeps, record: SQSRecord, pace: Pace): Promise<void> {
  const message = parseFanOutMessage(record.body);
  if (!message) return refuseRecord(deps, record, deps.queue.fanOut);
  try {
    if ('release' in message) await releaseIfResumed(deps, message.release);
    else await continueDispatch(deps, message.dispatch, message.cursor, pace);
  } catch (err) {
    deps.logger.error('fan-out wake-up failed; the sweeper resumes it', { ...message, error: (err as Error).name });
  }
}

/** A page a dispatch message names, if its entry still waits on it, within the invocation's pace. */
export async function continueDispatch(deps: MessagingDeps, eventId: string, cursor: string | null, pace: Pace): Promise<void> {
  const entry = await deps.store.outbox.get(eventId);
  // Gone: the fan-out finished. Another cursor: another run took it on.
  if (!entry || entry.cursor !== cursor) return;
  await dispatchMenuEvent(deps, eventOf(entry), cursor, pace);
}

const eventOf = ({ confirmed: _c, cursor: _k, ...event }: OutboxEntry): MenuEvent => event;

/** Entries one sweep settles per outbox shard at most: a backlog drains over several runs, each inside its timeout. */
export const SWEEP_PAGE = 25;
/** Seconds of the write budget one sweep spends dispatching; the entries it does not reach wait for the next run. */
const SWEEP_WRITE_SECONDS = 10;

/**
 * Settles outbox entries older than `graceMs` (a publish that crashed or whose
 * enqueue failed; a publish's own run ends well inside the grace), a bounded
 * page per shard, within one pace. Returns the events dispatched.
 */
export async function sweepOutbox(deps: MessagingDeps, graceMs = 60_000): Promise<number> {
  const before = new Date(deps.clock.now() - graceMs).toISOString();
  const pace = writePace();
  let dispatched = 0;
  for (const shard of outboxKeys.shards()) {
    const { entries } = await deps.store.outbox.due(shard, before, SWEEP_PAGE);
    for (const entry of entries) {
      if (pace.seconds() >= SWEEP_WRITE_SECONDS) return dispatched;
      try {
        if (await settle(deps, entry, pace)) dispatched++;
      } catch (err) {
        deps.logger.error('sweeper could not dispatch', { eventId: entry.eventId, error: (err as Error).name });
        // Behind the others: entries that keep failing never hold the shard's bounded page.
        await deps.store.outbox.postpone(entry.eventId, new Date(deps.clock.now()).toISOString()).catch(() => undefined);
      }
    }
  }
  return dispatched;
}

/**
 * An entry's body was written if a later publish confirmed it or the menu
 * holds its revision now; otherwise it never landed and the entry goes. The
 * menu is read before the entry: a publish confirms the entry before its own
 * body replaces the one it announces, so an entry read after a replaced
 * body shows the confirmation.
 */
async function settle(deps: MessagingDeps, seen: OutboxEntry, pace: Pace): Promise<boolean> {
  const stored = await deps.store.menus.get(seen.groupId, seen.locationId);
  const entry = await deps.store.outbox.get(seen.eventId);
  if (!entry) return false;
  const written = entry.confirmed || stored?.menu.revision === entry.revision || !(await deps.store.outbox.dropUnconfirmed(entry.eventId));
  if (!written) {
    deps.logger.info('outbox entry dropped: its menu was never written', { eventId: entry.eventId });
    return false;
  }
  // A publish that died between its body and its head left the head behind: receivers re-read with
  // If-None-Match, answered from the head, so it names this revision (or a later one) before they hear of it.
  if (stored) await deps.store.menus.putHead(headOf(stored));
  await dispatchMenuEvent(deps, eventOf(entry), entry.cursor, pace);
  return true;
}
