import { STATUS, TERMINAL_STATUSES, type DeliveryStatus, type TimelineEntry } from './delivery-policy.js';
import { deliveryIdOf, payloadOf, type EventFacts } from './messages.js';
import { getItem, applied, itemOf, queryPage, readItems, type Db, deleteItem, putItem, withoutKeys } from '#data/store';
import { everyGroupPage, type GroupIndex, type WalkKey } from '#data/group-index';
import { GSI1, GSI2, GSI3 } from '#data/table';

/**
 * The webhook's records, in the order a publish makes them: each menu event in the outbox until it is fanned
 * out, then one delivery per destination, with the markers that list dead letters.
 */

/**
 * Why a delivery's message sits in the DLQ: the policy's attempts are spent
 * (status DEAD_LETTER), or its receives were spent without them (status
 * unchanged), or it has no record at all.
 */
export type DeadLetterReason = 'attempts_exhausted' | 'receives_exhausted' | 'record_missing';

/**
 * One event for one destination, as it begins: created once per (eventId, destinationId), carried by one SQS
 * message. Its shape is the record's (`Delivery`).
 */
export function newDelivery(event: EventFacts, destination: { destinationId: string; hostname: string; clientId: string }, now: number) {
  const at = new Date(now).toISOString();
  return {
    deliveryId: deliveryIdOf(event.eventId, destination.destinationId),
    eventId: event.eventId,
    eventType: event.eventType,
    destinationId: destination.destinationId,
    destinationHost: destination.hostname,
    clientId: destination.clientId,
    groupId: event.groupId,
    locationId: event.locationId,
    /** The exact payload sent on every attempt (only the timestamp and signature are fresh). */
    body: payloadOf(event),
    status: STATUS.PENDING as DeliveryStatus,
    /** Attempts started so far; advanced only by the conditional write that starts one. */
    attempts: 0,
    /** Nominal waits chosen after each retryable failure, seconds. */
    backoffHistory: [] as number[],
    /** When the attempt under way or last made started: an attempt's timeline entry is written at its outcome. */
    lastAttemptAt: null as string | null,
    nextAttemptAt: null as string | null,
    redrives: 0,
    /** Times the sweeper queued it again because its message vanished (expired or purged); attempts go on where they were. */
    requeues: 0,
    /** The SQS message id that carries this delivery; any other message for it is a duplicate. Null until claimed. */
    carrier: null as string | null,
    /** The carrier's receive count when the current attempt started: a receive no later than it is a duplicate, not a return. */
    attemptReceive: null as number | null,
    /** Set while the delivery's message is (or is bound for) the DLQ; shown by `dlq list`. */
    deadLetterReason: null as DeadLetterReason | null,
    /** Its attempts, refusals and redrives, oldest first, at most TIMELINE_ENTRIES. */
    timeline: [] as TimelineEntry[],
    /** Bumped by every write; each write is conditional on the version it read. */
    version: 0,
    createdAt: at,
    updatedAt: at,
  };
}

/** One event for one destination: created once per (eventId, destinationId), carried by one SQS message. */
export type Delivery = ReturnType<typeof newDelivery>;

/** A delivery's fields its dead letter's marker copies (null without a record), so `dlq list` is one paged query. */
const COPIED = [
  'groupId',
  'clientId',
  'locationId',
  'status',
  'eventId',
  'eventType',
  'destinationId',
  'destinationHost',
  'attempts',
  'createdAt',
] as const;
type Copied = { [K in (typeof COPIED)[number]]: Delivery[K] | null };
export type DeadLetterMarker = { deliveryId: string; reason: DeadLetterReason; since: string; lastErrorCode: string | null } & Copied;

/**
 * What a record's steps tell, so none of it is stored apart: the code of its last attempt or refusal (none after a
 * success) and its HTTP status, if the receiver answered; and, once ended, when (no write follows an end but a redrive,
 * which starts it over).
 */
export function lastOutcome(d: Pick<Delivery, 'status' | 'timeline' | 'updatedAt'>) {
  const code = d.timeline.findLast((e) => e.code !== null)?.code ?? null;
  const http = code?.match(/^http_(\d{3})$/);
  return {
    lastErrorCode: d.status === STATUS.SUCCEEDED ? null : code,
    lastHttpStatus: http ? Number(http[1]) : null,
    completedAt: TERMINAL_STATUSES.includes(d.status) ? d.updatedAt : null,
  };
}

export const DELIVERY_RETENTION_SECONDS = 30 * 24 * 3600;
/** A record's expiry: 30 days after its last change (longer than the DLQ's 14-day retention). */
const expiryOf = (updatedAt: string) => Math.floor(Date.parse(updatedAt) / 1000) + DELIVERY_RETENTION_SECONDS;

export const deliveryKeys = {
  delivery: (id: string) => ({ PK: `DELIVERY#${id}`, SK: 'DELIVERY' }),
  /** GSI1 partition of one destination's deliveries, newest last. */
  ofDestination: (destinationId: string) => `DEST_DELIVERIES#${destinationId}`,
  /** GSI3 partition of one event's deliveries (one per destination), by delivery id. */
  ofEvent: (eventId: string) => `EVENT_DELIVERIES#${eventId}`,
  /** A small marker per dead letter, listed by ops. */
  deadLetter: (id: string) => ({ PK: `DEAD_LETTER#${id}`, SK: 'DEAD_LETTER' }),
  /** GSI1 partitions listing the markers: one per group and one for messages without a record. */
  deadLetters: { of: (groupId: string) => `DEAD_LETTERS#${groupId}`, unowned: 'DEAD_LETTERS_UNOWNED' } satisfies GroupIndex,
  /**
   * GSI2 partitions of the deliveries still waiting on their message, by last change: the sweeper finds those
   * whose message vanished without reading any other (docs/decisions/due-deliveries.md). A delivery id ends in a
   * hex digit (a hash): one partition per digit spreads every delivery write evenly over DUE_SHARDS.
   */
  due: {
    shard: (deliveryId: string) => `DUE#${parseInt(deliveryId.slice(-1), 16) % DUE_SHARDS}`,
    shards: () => Array.from({ length: DUE_SHARDS }, (_, i) => `DUE#${i}`),
  },
  /** Where the sweeper's last pass over each due partition stopped. */
  dueCursors: { PK: 'DUE_SWEEP', SK: 'CURSORS' },
};

/** Partitions of the due index: each takes a sixteenth of every delivery's writes to it (four or so a delivery). */
const DUE_SHARDS = 16;

/**
 * A delivery's entry in the due index, while it has one: from its creation until it ends (SUCCEEDED, FAILED,
 * DEAD_LETTER) or its message is found in the DLQ (`deadLetterReason`). Written with the record itself, so the
 * index never says more than the record.
 */
function dueEntry(d: Delivery): { GSI2PK: string; GSI2SK: string } | Record<string, never> {
  if (TERMINAL_STATUSES.includes(d.status) || d.deadLetterReason !== null) return {};
  return { GSI2PK: deliveryKeys.due.shard(d.deliveryId), GSI2SK: `${d.updatedAt}#${d.deliveryId}` };
}

export function markerOf(d: Delivery, reason: DeadLetterReason): DeadLetterMarker {
  const copied = Object.fromEntries(COPIED.map((k) => [k, d[k]])) as Copied;
  return { deliveryId: d.deliveryId, reason, since: d.updatedAt, lastErrorCode: lastOutcome(d).lastErrorCode, ...copied };
}

/** The marker of a message without a record: nothing of a delivery to copy. */
export function missingMarker(deliveryId: string, since: string): DeadLetterMarker {
  const copied = Object.fromEntries(COPIED.map((k) => [k, null])) as Copied;
  return { deliveryId, reason: 'record_missing', since, lastErrorCode: null, ...copied };
}

export function deliveriesRepo(db: Db) {
  /** One page of the markers, group by group, oldest first within each; it may hold fewer than `limit` and still have a next. */
  const deadLetterPage = async (nowSeconds: number, limit: number, startKey?: WalkKey) => {
    // TTL deletion lags (and dynalite has none): an expired marker is already gone.
    const unexpired = { expression: '#ttl > :now', names: { '#ttl': 'ttl' }, values: { ':now': nowSeconds } };
    const { items, lastKey } = await everyGroupPage(db, deliveryKeys.deadLetters, { filter: unexpired }, limit, startKey);
    return { items: items.map(withoutKeys<DeadLetterMarker>), lastKey };
  };
  /** Records by id, strongly consistent, in one BatchGetItem per 100, in the ids' order (null where there is none). */
  const many = async (ids: readonly string[]): Promise<(Delivery | null)[]> => {
    const items = await readItems(db, ids.map(deliveryKeys.delivery));
    return ids.map((id) => itemOf(items, deliveryKeys.delivery(id))).map((item) => (item ? withoutKeys<Delivery>(item) : null));
  };
  const item = (d: Delivery) => ({
    ...deliveryKeys.delivery(d.deliveryId),
    GSI1PK: deliveryKeys.ofDestination(d.destinationId),
    GSI1SK: `${d.createdAt}#${d.deliveryId}`,
    GSI3PK: deliveryKeys.ofEvent(d.eventId),
    GSI3SK: d.deliveryId,
    ...dueEntry(d),
    ...d,
    ttl: expiryOf(d.updatedAt),
  });
  return {
    /** Strongly consistent: a record just created, redriven or finished is never missed or seen in an older state. */
    async get(id: string): Promise<Delivery | null> {
      const item = await getItem(db, deliveryKeys.delivery(id), true);
      return item ? withoutKeys<Delivery>(item) : null;
    },
    many,
    /** Creates the record once; false when it already exists (a re-dispatch). */
    async create(d: Delivery): Promise<boolean> {
      return applied(putItem(db, { Item: item(d), ConditionExpression: 'attribute_not_exists(PK)' }));
    },
    /** Writes `next` if the record is still at `read`'s version; null when someone else wrote first. */
    async write(next: Delivery, read: Pick<Delivery, 'version'>): Promise<Delivery | null> {
      const saved = { ...next, version: read.version + 1 };
      const condition = { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': read.version } };
      return (await applied(putItem(db, { Item: item(saved), ...condition }))) ? saved : null;
    },
    /** A page of one event's deliveries, by delivery id, each read strongly consistent (the index only names them). */
    async ofEvent(eventId: string, { limit, startKey }: { limit: number; startKey?: Record<string, unknown> }) {
      const { items, lastKey } = await queryPage(
        db,
        {
          IndexName: GSI3.indexName,
          KeyConditionExpression: 'GSI3PK = :pk',
          ExpressionAttributeValues: { ':pk': deliveryKeys.ofEvent(eventId) },
        },
        limit,
        startKey,
      );
      // A record the index still names after its expiry is gone: left out.
      const records = await many(items.map((i) => String(i.GSI3SK)));
      return { items: records.filter((d): d is Delivery => d !== null), lastKey };
    },
    /**
     * A page of a destination's deliveries, newest first, created at or after `since` (absent: any time), of one status if
     * asked (filtered within the page).
     */
    async history(
      destinationId: string,
      { since, status, limit, startKey }: { since?: string; status?: DeliveryStatus; limit: number; startKey?: Record<string, unknown> },
    ) {
      const { items, lastKey } = await queryPage(
        db,
        {
          IndexName: GSI1.indexName,
          KeyConditionExpression: since ? 'GSI1PK = :pk AND GSI1SK >= :since' : 'GSI1PK = :pk',
          ...(status ? { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } } : {}),
          ExpressionAttributeValues: {
            ':pk': deliveryKeys.ofDestination(destinationId),
            ...(since ? { ':since': since } : {}),
            ...(status ? { ':status': status } : {}),
          },
          ScanIndexForward: false,
        },
        limit,
        startKey,
      );
      return { items: items.map(withoutKeys<Delivery>), lastKey };
    },
    /** Idempotent; the marker expires with its record (or with the DLQ's retention when there is none). */
    async markDeadLetter(marker: DeadLetterMarker, expiresAtSeconds = expiryOf(marker.since)): Promise<void> {
      await putItem(db, {
        Item: {
          ...deliveryKeys.deadLetter(marker.deliveryId),
          GSI1PK: marker.groupId ? deliveryKeys.deadLetters.of(marker.groupId) : deliveryKeys.deadLetters.unowned,
          GSI1SK: `${marker.since}#${marker.deliveryId}`,
          ...marker,
          ttl: expiresAtSeconds,
        },
      });
    },
    async unmarkDeadLetter(id: string): Promise<void> {
      await deleteItem(db, { Key: deliveryKeys.deadLetter(id) });
    },
    /** Whether a delivery is listed as a dead letter (strongly consistent: the sweeper relists what a moment ago was not). */
    async isDeadLetter(id: string, nowSeconds: number): Promise<boolean> {
      const item = await getItem(db, deliveryKeys.deadLetter(id), true);
      return item !== null && Number(item.ttl) > nowSeconds;
    },
    deadLetterPage,
    /**
     * A page of one due partition's entries, oldest first, whose sort key lies from `from` (inclusive; absent: the
     * oldest) to the last change `before` (ISO); `more` when the page was full.
     */
    async due(shard: string, { from, before, limit }: { from?: string; before: string; limit: number }) {
      const { items } = await queryPage(
        db,
        {
          IndexName: GSI2.indexName,
          KeyConditionExpression: from === undefined ? 'GSI2PK = :pk AND GSI2SK <= :to' : 'GSI2PK = :pk AND GSI2SK BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': shard, ':to': `${before}#\uffff`, ...(from === undefined ? {} : { ':from': from }) },
        },
        limit,
      );
      // The sort key ends in the delivery id (dueEntry).
      const entries = items.map(({ GSI2SK }) => ({ deliveryId: String(GSI2SK).split('#').at(-1)!, sortKey: String(GSI2SK) }));
      return { entries, more: items.length === limit };
    },
    /** Where the sweeper's last pass stopped in each due partition (the sort key it reached). */
    async dueCursors(): Promise<Record<string, string>> {
      const item = await getItem(db, deliveryKeys.dueCursors, true);
      return (item?.cursors ?? {}) as Record<string, string>;
    },
    async saveDueCursors(cursors: Record<string, string>): Promise<void> {
      await putItem(db, { Item: { ...deliveryKeys.dueCursors, cursors } });
    },
  };
}
