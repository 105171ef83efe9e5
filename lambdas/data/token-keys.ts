import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { applied, type Db } from './db.js';

export const tokenKeyKeys = {
  /** The one current key; a later rotation adds versions beside it. */
  current: { PK: 'TOKEN_KEY', SK: 'v1' },
};

export type TokenKeysRepo = {
  /** The service's key for access-token tags: read once per process (created by the first caller that finds none). */
  current(): Promise<Buffer>;
};

/** Per table, for the life of the process: the key never changes under a running function. */
const cache = new Map<string, Promise<Buffer>>();

export function tokenKeysRepo({ doc, tableName }: Db): TokenKeysRepo {
  const read = async (): Promise<Buffer | null> => {
    const { Item } = await doc.send(new GetCommand({ TableName: tableName, Key: tokenKeyKeys.current, ConsistentRead: true }));
    return Item ? Buffer.from(Item.key as string, 'base64') : null;
  };
  const load = async (): Promise<Buffer> => {
    const found = await read();
    if (found) return found;
    // Two first callers race: one write wins, both then use the stored key.
    await applied(
      doc.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...tokenKeyKeys.current, key: randomBytes(32).toString('base64') },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
    return (await read())!;
  };
  return {
    current() {
      let key = cache.get(tableName);
      if (!key) {
        key = load();
        cache.set(tableName, key);
        // A failed read is not remembered: the next request tries again.
        key.catch(() => cache.delete(tableName));
      }
      return key;
    },
  };
}
