import { getItem, applied, type Db, itemOf, readItems, deleteItem, putItem, updateItem, unlessConflict, withoutKeys } from '#data/store';
import { everyGroupPage, groupPage, type GroupIndex, type WalkKey } from '#data/group-index';
import { appKeys, type App } from '#data/apps';
import { DELIVERY_POLICY } from './delivery-policy.js';
import type { Config } from '#platform/config';
import type { SafetyOptions } from '#domain/url-safety';
import { DAY_MS } from '#contract/business-date';
import { count } from '#platform/observability';
import { lastOutcome, type Delivery } from './deliveries.js';
import type { Deps } from '#platform/deps';
import type { Store } from '#data/repositories';
import { MENU_UPDATED } from './events.js';

/** The destination URL rules as this deployment applies them, on save and before every attempt. */
export function urlSafetyOf(config: Pick<Config, 'webhookAllowLoopback' | 'webhookListenInbox'>): SafetyOptions {
  return { allowLoopback: config.webhookAllowLoopback, listenInbox: config.webhookListenInbox?.origin };
}

/** A destination is paused while its consecutive failed attempts reach the policy's bound; a success ends it. */
export const isPaused = (d: Pick<Destination, 'consecutiveFailures'>): boolean =>
  d.consecutiveFailures >= DELIVERY_POLICY.pauseAfterFailures;

/** Stored health; DISABLED is derived from `enabled` when shown. */
type StoredHealth = 'NOT_TESTED' | 'HEALTHY' | 'FAILING';

/** A customer's webhook receiver (contract 6.5). */
export type Destination = {
  destinationId: string;
  clientId: string;
  groupId: string;
  name: string;
  url: string;
  /** The URL's host, safe to show (no path or query, which may carry customer tokens). */
  hostname: string;
  /** null: every location the application covers, now and later; a list never widens. */
  locationIds: string[] | null;
  enabled: boolean;
  /** 32 random bytes, base64url; never leaves the service except once at creation or rotation. */
  signingSecret: string;
  health: StoredHealth;
  consecutiveFailures: number;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  createdAt: string;
  updatedAt: string;
};

type ConfigField = 'name' | 'url' | 'hostname' | 'locationIds' | 'enabled' | 'signingSecret' | 'updatedAt';

export const destinationKeys = {
  destination: (id: string) => ({ PK: `DEST#${id}`, SK: 'DEST' }),
  /**
   * Health after attempts, beside the destination but apart from it: the
   * destination item is in the destinations index, and an index entry
   * rewritten on every attempt would make its partition a hot key.
   */
  health: (id: string) => ({ PK: `DEST#${id}`, SK: 'HEALTH' }),
  /** GSI1 partitions listing destinations: one per group, sorted by group then application. */
  index: { of: (groupId: string) => `DESTINATIONS#${groupId}` } satisfies GroupIndex,
  sort: (d: Pick<Destination, 'groupId' | 'clientId' | 'destinationId'>) => `${d.groupId}#${d.clientId}#${d.destinationId}`,
};

type HealthFields = Pick<Destination, 'health' | 'consecutiveFailures' | 'lastSuccessAt' | 'lastFailureAt'>;
/** The health of a destination no attempt has reached yet. */
export const UNTESTED: HealthFields = { health: 'NOT_TESTED', consecutiveFailures: 0, lastSuccessAt: null, lastFailureAt: null };
/** A health item outlives a removed destination only this long (an attempt may finish after the removal). */
const HEALTH_TTL_SECONDS = 400 * 86_400;

/** The application item's count of its destinations (DestinationsRepo.create). */
const DESTINATION_COUNT = 'destinationCount' satisfies keyof App;

export function destinationsRepo(db: Db) {
  /**
   * One place fewer in the application's count, never below zero. A removal whose count write is lost (the
   * function stopped between the two writes) leaves the count one high: the limit errs towards refusing.
   */
  const releasePlace = (clientId: string) =>
    applied(
      updateItem(db, {
        Key: appKeys.app(clientId),
        UpdateExpression: 'ADD #count :minusOne',
        ConditionExpression: '#count > :zero',
        ExpressionAttributeNames: { '#count': DESTINATION_COUNT },
        ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
      }),
    );
  /** Creates or replaces; `mustExist` refuses to resurrect a destination removed meanwhile. */
  const put = (destination: Destination, { mustExist }: { mustExist: boolean }): Promise<boolean> =>
    applied(
      putItem(db, {
        Item: {
          ...destinationKeys.destination(destination.destinationId),
          GSI1PK: destinationKeys.index.of(destination.groupId),
          GSI1SK: destinationKeys.sort(destination),
          ...destination,
        },
        ConditionExpression: mustExist ? 'attribute_exists(PK)' : 'attribute_not_exists(PK)',
      }),
    );
  return {
    /** Strongly consistent: an attempt signs with the secret of the latest rotation and sees a disable or removal at once. */
    async get(id: string): Promise<Destination | null> {
      const item = await getItem(db, destinationKeys.destination(id), true);
      return item ? withoutKeys<Destination>(item) : null;
    },
    put,
    /**
     * Adds a new destination unless its application has `limit` already: false then, and nothing written. The count
     * is the application item's, claimed by a conditional write before the destination is written, so two creates at
     * once never both pass the limit.
     */
    async create(destination: Destination, limit: number): Promise<boolean> {
      const claimed = await applied(
        updateItem(db, {
          Key: appKeys.app(destination.clientId),
          UpdateExpression: 'SET #count = if_not_exists(#count, :zero) + :one',
          ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(#count) OR #count < :limit)',
          ExpressionAttributeNames: { '#count': DESTINATION_COUNT },
          ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':limit': limit },
        }),
      );
      if (!claimed) return false;
      try {
        await put(destination, { mustExist: false });
      } catch (err) {
        await releasePlace(destination.clientId);
        throw err;
      }
      return true;
    },
    /** Removes the destination and its health, and frees its place in its application's count. */
    async remove(id: string): Promise<boolean> {
      const removed = await unlessConflict(
        deleteItem(db, { Key: destinationKeys.destination(id), ConditionExpression: 'attribute_exists(PK)', ReturnValues: 'ALL_OLD' }),
      );
      if (!removed) return false;
      await Promise.all([deleteItem(db, { Key: destinationKeys.health(id) }), releasePlace(String(removed.Attributes!.clientId))]);
      return true;
    },
    /** Changes configuration fields only (health stays with recordAttempt); null when the destination is gone. */
    async update(id: string, fields: Partial<Pick<Destination, ConfigField>>): Promise<Destination | null> {
      const names = Object.keys(fields) as ConfigField[];
      const updated = await unlessConflict(
        updateItem(db, {
          Key: destinationKeys.destination(id),
          UpdateExpression: `SET ${names.map((n) => `#${n} = :${n}`).join(', ')}`,
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: Object.fromEntries(names.map((n) => [`#${n}`, n])),
          ExpressionAttributeValues: Object.fromEntries(names.map((n) => [`:${n}`, fields[n]])),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return updated?.Attributes ? withoutKeys<Destination>(updated.Attributes) : null;
    },
    /**
     * A page of destinations by group then application: of one application (in its group), of one group, or of
     * every group in turn. A page may hold fewer than `limit` and still have a next.
     */
    async page({ scope, limit, startKey }: { scope?: { groupId: string; clientId?: string }; limit: number; startKey?: WalkKey }) {
      const prefix = scope && (scope.clientId ? `${scope.groupId}#${scope.clientId}#` : `${scope.groupId}#`);
      const { items, lastKey } = scope
        ? await groupPage(db, destinationKeys.index, scope.groupId, { prefix }, limit, startKey)
        : await everyGroupPage(db, destinationKeys.index, {}, limit, startKey);
      return { destinations: items.map(withoutKeys<Destination>), lastKey };
    },
    /**
     * Health after an attempt, as one atomic update of the health item (no read-modify-write between concurrent
     * deliveries). Returns the consecutive failures recorded before this attempt, and whether this attempt is the
     * production success that ends a failing notice (`production`: a test delivery never clears one), of which
     * exactly one is.
     */
    async recordAttempt(id: string, succeeded: boolean, at: string, production = false) {
      const ttl = Math.floor(Date.parse(at) / 1000) + HEALTH_TTL_SECONDS;
      // A production success clears the failing notice in the same atomic update: the one whose old value was set recovers it.
      const clears = succeeded && production;
      const { Attributes } = await updateItem(db, {
        Key: destinationKeys.health(id),
        UpdateExpression: succeeded
          ? `SET health = :h, consecutiveFailures = :zero, lastSuccessAt = :at, #ttl = :ttl${clears ? ', failingNoticed = :no' : ''}`
          : 'SET health = :h, lastFailureAt = :at, #ttl = :ttl ADD consecutiveFailures :one',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: succeeded
          ? { ':h': 'HEALTHY', ':zero': 0, ':at': at, ':ttl': ttl, ...(clears ? { ':no': false } : {}) }
          : { ':h': 'FAILING', ':at': at, ':one': 1, ':ttl': ttl },
        ReturnValues: 'UPDATED_OLD',
      });
      return { failuresBefore: Number(Attributes?.consecutiveFailures ?? 0), recovered: Attributes?.failingNoticed === true };
    },
    /** Records that the owner is being told the destination is failing, unless they were told less than `gapMs` before `at`. */
    async noteFailing(id: string, at: number, gapMs: number): Promise<boolean> {
      return applied(
        updateItem(db, {
          Key: destinationKeys.health(id),
          UpdateExpression: 'SET failingNoticed = :yes, failingNoticeAt = :at',
          ConditionExpression: 'attribute_not_exists(failingNoticeAt) OR failingNoticeAt <= :cutoff',
          ExpressionAttributeValues: { ':yes': true, ':at': new Date(at).toISOString(), ':cutoff': new Date(at - gapMs).toISOString() },
        }),
      );
    },
    /** Names of destinations by id, in one batch read (eventually consistent: a list's labels); a removed one is absent. */
    async names(ids: readonly string[]): Promise<Map<string, string>> {
      const found = await readItems(db, ids.map(destinationKeys.destination), false);
      const named = ids.map((id) => [id, itemOf(found, destinationKeys.destination(id))?.name] as const);
      return new Map(named.filter(([, name]) => name !== undefined).map(([id, name]) => [id, String(name)]));
    },
    /**
     * The destinations with the health their attempts recorded (ops' views; an attempt needs none). A destination
     * without a health item (no attempt has reached it) shows what its own item holds: untested.
     */
    async withHealth(destinations: Destination[]): Promise<Destination[]> {
      const found = await readItems(
        db,
        destinations.map((d) => destinationKeys.health(d.destinationId)),
        false,
      );
      return destinations.map((d) => {
        const item = itemOf(found, destinationKeys.health(d.destinationId));
        if (!item) return d;
        return {
          ...d,
          health: item.health as HealthFields['health'],
          consecutiveFailures: Number(item.consecutiveFailures ?? 0),
          lastSuccessAt: (item.lastSuccessAt as string | undefined) ?? d.lastSuccessAt,
          lastFailureAt: (item.lastFailureAt as string | undefined) ?? d.lastFailureAt,
        };
      });
    },
  };
}

/**
 * The owner's notices when a destination's health turns (operational, unlike the configuration notices of contract
 * 6.5 rule 8, which stay exactly as the contract has them): one when it starts dead-lettering production events, at
 * most one a day per destination, and one when a production delivery to it succeeds again. Test deliveries never
 * count (Send test stays silent). Like every owner mail: queued in the outbox, sent by the sweeper, never a secret or
 * the full URL (only the safe hostname: 6.5 rules 6 and 9). Ops see the same as metrics.
 */
export const FAILURE_NOTICE_GAP_MS = DAY_MS;

/** What the notices need of a function's deps (MessagingDeps has it). */
type NoticeDeps = Deps<Store & { destinations: ReturnType<typeof destinationsRepo> }>;

/** A production event (a menu change); test deliveries never count. */
export const isProduction = (d: Pick<Delivery, 'eventType'>) => d.eventType === MENU_UPDATED;

/** After a production delivery was dead-lettered: the owner is told, unless they were told in the last day. */
export async function noticeDeadLetter(deps: NoticeDeps, d: Delivery): Promise<void> {
  if (!isProduction(d)) return;
  await notify(deps, 'failing', d, async (now) => {
    if (!(await deps.store.destinations.noteFailing(d.destinationId, now, FAILURE_NOTICE_GAP_MS))) return null;
    count(deps, 'DestinationFailingNotified');
    return {
      destination: deps.store.destinations.get(d.destinationId),
      subject: 'is failing',
      text: (named) =>
        `${named} did not accept an event after every attempt the delivery policy allows: ` +
        `delivery ${d.deliveryId} of event ${d.eventId} for location ${d.locationId}, last error ${lastOutcome(d).lastErrorCode ?? 'unknown'}.\n` +
        'Events that cannot be delivered are kept as dead letters; once your receiver answers 2xx again, your administrator can ' +
        'send them again. Check the receiver at that host, its TLS certificate and its signature verification.\n' +
        'You get at most one such notice a day for this destination, and one when it receives events again.\n',
    };
  });
}

/** After the production success that cleared a failing notice (recordAttempt's `recovered`): the owner is told. */
export async function noticeRecovery(deps: NoticeDeps, destination: Destination, d: Delivery): Promise<void> {
  await notify(deps, 'recovered', d, async () => {
    count(deps, 'DestinationRecoveredNotified');
    return {
      destination,
      subject: 'receives events again',
      text: (named) =>
        `${named} accepted delivery ${d.deliveryId} of event ${d.eventId}.\n` +
        'Events dead-lettered while it was failing are not sent again by themselves: ask your administrator to redrive them, ' +
        "or reconcile your copy of each location's menu (a conditional GET of its bevq/menu resource).\n",
    };
  });
}

/**
 * What a mail to the owner says about one of their destinations (configuration or health): its subject ends in
 * `about`; its text goes on from the sentence naming the destination and its application. Never a secret, never the
 * full URL (only the safe hostname).
 */
export function aboutDestination(app: App, destination: Destination, about: string, text: (named: string) => string) {
  const named =
    `The webhook destination ${destination.destinationId} ("${destination.name}", host ${destination.hostname}) of application ` +
    `${app.clientId} (${app.name})`;
  return { subject: `Customer API: webhook destination "${destination.name}" ${about}`, text: text(named) };
}

/** A notice about `destination` (read alongside the owner when a promise): the end of its subject, and its text after the sentence naming it. */
type Notice = { destination: Destination | Promise<Destination | null>; subject: string; text: (named: string) => string };

/**
 * Queues the notice `decide` makes, if any, to the application's owner, keyed by kind, destination and time. A
 * notice that cannot be queued never fails the delivery it is about: logged (no address), for ops to see.
 */
async function notify(
  deps: NoticeDeps,
  kind: 'failing' | 'recovered',
  d: Delivery,
  decide: (now: number) => Promise<Notice | null>,
): Promise<void> {
  try {
    const now = deps.clock.now();
    const notice = await decide(now);
    if (!notice) return;
    const [destination, app] = await Promise.all([notice.destination, deps.store.apps.get(d.clientId)]);
    if (!destination || !app?.ownerEmail) return;
    const mail = { to: app.ownerEmail, ...aboutDestination(app, destination, notice.subject, notice.text) };
    await deps.store.mailOutbox.queue(`destination-${kind}#${d.destinationId}#${new Date(now).toISOString()}`, mail, now);
  } catch (err) {
    deps.logger.error('owner failure notice not queued', { kind, destinationId: d.destinationId, error: (err as Error).name });
  }
}
