import type { MENU_UPDATED } from './events.js';
import type { EventFacts } from './messages.js';
import { applied, getItem, queryPage, type Db, deleteItem, putItem, updateItem, withoutKeys } from '#data/store';
import { GSI1 } from '#data/table';

/** A `bevq.menu.updated` event waiting to be fanned out. */
export type MenuEvent = EventFacts & { eventType: typeof MENU_UPDATED };

/**
 * The outbox: one small item per undispatched event, apart from the menu
 * (docs/decisions/webhooks.md, "Outbox"). Written before the menu body it
 * announces; `confirmed` once a later publish has seen that body, so the
 * sweeper can tell an event whose body never landed from one whose body was
 * since replaced.
 */
export type OutboxEntry = MenuEvent & {
  confirmed: boolean;
  /**
   * Where the fan-out goes on: the destinations index key the next page
   * starts after (opaque, JSON), null before the first page. The fan-out
   * moves it forward one page at a time; the entry goes after the last.
   */
  cursor: string | null;
};

/** Index partitions the entries spread over: no single index key takes every publish. */
const OUTBOX_SHARDS = 8;

export const outboxKeys = {
  event: (eventId: string) => ({ PK: `OUTBOX#${eventId}`, SK: 'EVENT' }),
  /** Event ids end in hex (a hash): their last digit spreads them evenly. */
  shard: (eventId: string) => `OUTBOX#${parseInt(eventId.slice(-1), 16) % OUTBOX_SHARDS}`,
  shards: () => Array.from({ length: OUTBOX_SHARDS }, (_, i) => `OUTBOX#${i}`),
};

export function outboxRepo(db: Db) {
  const key = outboxKeys.event;
  return {
    /** The intent, before its body is written (confirmed: the body is known written); an entry already there is kept as it is. */
    async add(event: MenuEvent, confirmed = false): Promise<void> {
      await applied(
        putItem(db, {
          Item: {
            ...key(event.eventId),
            GSI1PK: outboxKeys.shard(event.eventId),
            GSI1SK: `${event.occurredAt}#${event.eventId}`,
            ...event,
            confirmed,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    },
    /** Marks an entry's body as written; nothing when there is no entry. */
    async confirm(eventId: string): Promise<void> {
      await applied(
        updateItem(db, {
          Key: key(eventId),
          UpdateExpression: 'SET confirmed = :yes',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':yes': true },
        }),
      );
    },
    /** Strongly consistent: the sweeper decides on what a publish confirmed a moment ago. */
    async get(eventId: string): Promise<OutboxEntry | null> {
      const item = await getItem(db, key(eventId), true);
      return item ? toEntry(item) : null;
    },
    /** Dispatched: out of the outbox. */
    async remove(eventId: string): Promise<void> {
      await deleteItem(db, { Key: key(eventId) });
    },
    /**
     * Records a page as dispatched: the cursor moves from `from` to `to` (and the entry is due again only a grace
     * after `at`). False when the cursor was no longer `from`: another run took the fan-out on, and this one stops.
     */
    advance: (eventId: string, from: string | null, to: string, at: string) =>
      applied(
        updateItem(db, {
          Key: key(eventId),
          // Confirmed too: a page was dispatched only for a body known written.
          UpdateExpression: 'SET #cursor = :to, confirmed = :yes, GSI1SK = :sk',
          ConditionExpression: from === null ? 'attribute_exists(PK) AND attribute_not_exists(#cursor)' : '#cursor = :from',
          ExpressionAttributeNames: { '#cursor': 'cursor' },
          ExpressionAttributeValues: { ':to': to, ':yes': true, ':sk': `${at}#${eventId}`, ...(from === null ? {} : { ':from': from }) },
        }),
      ),
    /** Due again only a grace after `at`: an entry the sweeper could not settle goes behind the others of its shard. */
    async postpone(eventId: string, at: string): Promise<void> {
      await applied(
        updateItem(db, {
          Key: key(eventId),
          UpdateExpression: 'SET GSI1SK = :sk',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':sk': `${at}#${eventId}` },
        }),
      );
    },
    /** Removes an entry only while unconfirmed; false when it was confirmed meanwhile (or is gone). */
    dropUnconfirmed: (eventId: string) =>
      applied(deleteItem(db, { Key: key(eventId), ConditionExpression: 'confirmed = :no', ExpressionAttributeValues: { ':no': false } })),
    /** A page of one shard's entries that occurred at or before `before` (ISO), oldest first. */
    async due(shard: string, before: string, limit: number) {
      const { items } = await queryPage(
        db,
        {
          IndexName: GSI1.indexName,
          KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK <= :before',
          ExpressionAttributeValues: { ':pk': shard, ':before': `${before}#\uffff` },
        },
        limit,
      );
      return { entries: items.map(toEntry) };
    },
  };
}

function toEntry(item: Record<string, unknown>): OutboxEntry {
  const entry = withoutKeys<Record<string, unknown>>(item);
  return { ...(entry as MenuEvent), confirmed: entry.confirmed === true, cursor: typeof entry.cursor === 'string' ? entry.cursor : null };
}
