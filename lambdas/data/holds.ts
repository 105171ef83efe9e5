import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { applied, queryPage, type Db } from './db.js';

/**
 * A paused destination's record of what waits for it: one pause item per
 * destination (listed for the sweeper, in one of a few index partitions)
 * and one marker per held delivery under the destination's own key
 * (docs/decisions/webhooks.md, "Paused destinations").
 */
export type Pause = { destinationId: string; since: string; probeAt: string; probeSeconds: number };
export type HeldMarker = { destinationId: string; deliveryId: string; sk: string };

/** Index partitions the pause items spread over. */
export const PAUSE_SHARDS = 8;

export const holdKeys = {
  pause: (destinationId: string) => ({ PK: `PAUSE#${destinationId}`, SK: 'PAUSE' }),
  /** Destination ids end in hex: their last digit spreads them evenly. */
  shard: (destinationId: string) => `PAUSED#${parseInt(destinationId.slice(-1), 16) % PAUSE_SHARDS}`,
  shards: () => Array.from({ length: PAUSE_SHARDS }, (_, i) => `PAUSED#${i}`),
  held: (destinationId: string, heldAt: string, deliveryId: string) => ({ PK: `HELD#${destinationId}`, SK: `${heldAt}#${deliveryId}` }),
};

export type HoldsRepo = {
  /** Kept as it is when there already is one. */
  open(pause: Pause): Promise<void>;
  nextProbe(destinationId: string, probeAt: string, probeSeconds: number): Promise<void>;
  close(destinationId: string): Promise<void>;
  pausedPage(shard: string, limit: number): Promise<Pause[]>;
  hold(destinationId: string, deliveryId: string, heldAt: string): Promise<void>;
  /** The oldest held deliveries of a destination; `more` when others follow. */
  heldPage(destinationId: string, limit: number): Promise<{ markers: HeldMarker[]; more: boolean }>;
  release(marker: HeldMarker): Promise<void>;
};

export function holdsRepo({ doc, tableName }: Db): HoldsRepo {
  return {
    async open(pause: Pause): Promise<void> {
      await applied(
        doc.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...holdKeys.pause(pause.destinationId), GSI1PK: holdKeys.shard(pause.destinationId), GSI1SK: pause.destinationId, ...pause },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        ),
      );
    },
    async nextProbe(destinationId, probeAt, probeSeconds) {
      await applied(
        doc.send(
          new UpdateCommand({
            TableName: tableName,
            Key: holdKeys.pause(destinationId),
            UpdateExpression: 'SET probeAt = :at, probeSeconds = :s',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':at': probeAt, ':s': probeSeconds },
          }),
        ),
      );
    },
    async close(destinationId) {
      await doc.send(new DeleteCommand({ TableName: tableName, Key: holdKeys.pause(destinationId) }));
    },
    async pausedPage(shard, limit) {
      const { items } = await queryPage(
        doc,
        { TableName: tableName, IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': shard } },
        limit,
      );
      return items.map((i) => ({ destinationId: String(i.destinationId), since: String(i.since), probeAt: String(i.probeAt), probeSeconds: Number(i.probeSeconds) }));
    },
    async hold(destinationId, deliveryId, heldAt) {
      await doc.send(new PutCommand({ TableName: tableName, Item: { ...holdKeys.held(destinationId, heldAt, deliveryId), deliveryId } }));
    },
    async heldPage(destinationId, limit) {
      // Strongly consistent: a marker written a moment ago is released with the rest.
      const { items, lastKey } = await queryPage(
        doc,
        { TableName: tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `HELD#${destinationId}` }, ConsistentRead: true },
        limit,
      );
      return { markers: items.map((i) => ({ destinationId, deliveryId: String(i.deliveryId), sk: String(i.SK) })), more: lastKey !== undefined };
    },
    async release(marker) {
      await doc.send(new DeleteCommand({ TableName: tableName, Key: { PK: `HELD#${marker.destinationId}`, SK: marker.sk } }));
    },
  };
}
