import { applied, itemOf, query, readItems, withoutKeys, writeBatches, type Db, deleteItem, putItem, updateItem } from '#data/store';
import { GSI1 } from '#data/table';

/**
 * Deliveries held for a paused destination (docs/decisions/webhooks.md,
 * "Pausing a failing destination"): a small item per held delivery under the
 * destination's own partition, oldest first, and one marker per paused
 * destination in a sharded index partition, so the sweeper finds them
 * without reading every destination. The marker is written once when the
 * first delivery is held, never per attempt.
 */
const PAUSED_SHARDS = 8;

export const holdKeys = {
  /** A held delivery's item: its destination's partition, oldest first. */
  held: ({ destinationId, createdAt, deliveryId }: HeldDelivery) => ({ PK: `HELD#${destinationId}`, SK: `${createdAt}#${deliveryId}` }),
  marker: (destinationId: string) => ({ PK: `PAUSED#${destinationId}`, SK: 'PAUSED' }),
  shard: (destinationId: string) => `PAUSED#${destinationId.charCodeAt(destinationId.length - 1) % PAUSED_SHARDS}`,
  shards: () => Array.from({ length: PAUSED_SHARDS }, (_, i) => `PAUSED#${i}`),
};

/** `redrive`: the record's redrive count its message is sent for. */
export type Held = { destinationId: string; deliveryId: string; clientId: string; createdAt: string; redrive: number };
type HeldDelivery = Pick<Held, 'destinationId' | 'createdAt' | 'deliveryId'>;
/** A destination with held deliveries: `since` names this marker (a new one after removal), `probedAt` its last probe (at first, `since`). */
export type PausedMarker = { destinationId: string; since: string; probedAt: string };

export function holdsRepo(db: Db) {
  return {
    /** Writes the held items, 25 a BatchWriteItem: a held item's key is its delivery's, so writing it again changes nothing. */
    hold: (held: readonly Held[]) =>
      writeBatches(
        db,
        held.map((h) => ({ PutRequest: { Item: { ...holdKeys.held(h), ...h } } })),
      ),
    /** Which of these deliveries are held now (strongly consistent, one BatchGetItem per 100). */
    async heldAmong(deliveries: readonly HeldDelivery[]): Promise<Set<string>> {
      const items = await readItems(db, deliveries.map(holdKeys.held));
      return new Set(deliveries.filter((d) => itemOf(items, holdKeys.held(d)) !== null).map((d) => d.deliveryId));
    },
    /** Writes the destination's marker unless one exists. */
    async markPaused(destinationId: string, at: string): Promise<void> {
      await applied(
        putItem(db, {
          // The first probe is due a probe interval after the pause began.
          Item: {
            ...holdKeys.marker(destinationId),
            GSI1PK: holdKeys.shard(destinationId),
            GSI1SK: `${at}#${destinationId}`,
            destinationId,
            since: at,
            probedAt: at,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    },
    /** The oldest held deliveries of a destination (strongly consistent: the sweeper decides on them). */
    async oldest(destinationId: string, limit: number): Promise<Held[]> {
      const { Items = [] } = await query(db, {
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': `HELD#${destinationId}` },
        ConsistentRead: true,
        Limit: limit,
      });
      return Items.map(withoutKeys<Held>);
    },
    // A held item left behind by a failure is only released again later (a duplicate message is harmless).
    release: (held: readonly Held[]) =>
      writeBatches(
        db,
        held.map((h) => ({ DeleteRequest: { Key: holdKeys.held(h) } })),
      ),
    /** A page of one shard's markers. */
    async paused(shard: string, limit: number): Promise<PausedMarker[]> {
      const { Items = [] } = await query(db, {
        IndexName: GSI1.indexName,
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': shard },
        Limit: limit,
      });
      return (Items as PausedMarker[]).map(({ destinationId, since, probedAt }) => ({ destinationId, since, probedAt }));
    },
    /** Records a probe unless another run recorded one since `probedAt`; true when this run takes the probe. */
    takeProbe: (marker: PausedMarker, at: string) =>
      applied(
        updateItem(db, {
          Key: holdKeys.marker(marker.destinationId),
          UpdateExpression: 'SET probedAt = :at',
          ConditionExpression: 'since = :since AND probedAt = :was',
          ExpressionAttributeValues: { ':at': at, ':since': marker.since, ':was': marker.probedAt },
        }),
      ),
    /** Puts the marker at the back of its shard's order, so a sweep's bounded page reaches every paused destination in turn. */
    async requeue(marker: PausedMarker, at: string): Promise<void> {
      await applied(
        updateItem(db, {
          Key: holdKeys.marker(marker.destinationId),
          UpdateExpression: 'SET GSI1SK = :sk',
          ConditionExpression: 'since = :since',
          ExpressionAttributeValues: { ':sk': `${at}#${marker.destinationId}`, ':since': marker.since },
        }),
      );
    },
    /** Removes the marker it names (a marker written since stays). */
    unmarkPaused: (marker: PausedMarker) =>
      applied(
        deleteItem(db, {
          Key: holdKeys.marker(marker.destinationId),
          ConditionExpression: 'since = :since',
          ExpressionAttributeValues: { ':since': marker.since },
        }),
      ),
  };
}
