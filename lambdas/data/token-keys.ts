import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { applied, type Db } from './db.js';

export const tokenKeyKeys = {
  /** The one current key; a later rotation adds versions beside it. */
  current: { PK: 'TOKEN_KEY', SK: 'v1' },
};

export type TokenKeysRepo = {
  /** The service's key for access-token tags, or null while no token was ever issued; read once per process once found. */
  find(): Promise<Buffer | null>;
  /** The key, created by the first caller that finds none (the token function: only it writes). */
  ensure(): Promise<Buffer>;
};

/** Per table, for the life of the process: the key never changes under a running function. */
const found = new Map<string, Promise<Buffer | null>>();

export function tokenKeysRepo({ doc, tableName }: Db): TokenKeysRepo {
  const find = (): Promise<Buffer | null> => {
    let key = found.get(tableName);
    if (!key) {
      key = doc
        .send(new GetCommand({ TableName: tableName, Key: tokenKeyKeys.current, ConsistentRead: true }))
        .then(({ Item }) => (Item ? Buffer.from(Item.key as string, 'base64') : null));
      found.set(tableName, key);
      // Only a key is remembered: a failed read, or none yet, is asked again next time.
      const forget = () => void found.delete(tableName);
      key.then((k) => k ?? forget(), forget);
    }
    return key;
  };
  return {
    find,
    async ensure() {
      const existing = await find();
      if (existing) return existing;
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
      return (await find())!;
    },
  };
}
